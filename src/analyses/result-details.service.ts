import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import { Page } from '../common/pipes';
import type { ConfigurationSummary, Explanation, OutOfFoldExplanationValues } from '../engine/types';
import { csvCell } from '../common/csv-cell';
import { leaderboardPage, outOfFoldOf, resultState } from './analyses.queries';

/** A leaderboard row as the API shows it: its position (1 = the highest metric) beside the engine's summary (a metric that could not be computed is null). */
export type LeaderboardRow = { rank: number } & Omit<ConfigurationSummary, 'value'> & { value: number | null };

export interface OutOfFoldRow {
  row: number;
  sampleId?: string;
  /** the outcome: class label, value or time */
  actual: string | number;
  /** survival: 1 = event, 0 = censored */
  event?: number;
  prediction: string | number;
  probabilities?: Record<string, number>;
  risk?: number;
  explanation?: Explanation;
}

/** The explanation of sample i from a model's out-of-fold explanations (arrays over the samples). */
function explanationOf(e: OutOfFoldExplanationValues, i: number): Explanation {
  const H = e.heads;
  const M = e.features.length;
  const byName = (values: number[], at: number): Record<string, number> =>
    Object.fromEntries(e.features.map((f, m) => [f, values[at + m]]));
  return {
    scale: e.scale,
    method: e.method,
    outputs: Array.from({ length: H }, (_, h) => ({
      ...(e.classes ? { class: e.classes[h] } : {}),
      value: e.output[i * H + h],
      base: e.base[i * H + h],
      contributions: byName(e.values, (i * H + h) * M),
      ...(e.standardErrors ? { standardErrors: byName(e.standardErrors, (i * H + h) * M) } : {}),
    })),
  };
}

/** The parts of a finished analysis's result beyond api-v1's: the leaderboard and the out-of-fold predictions. */
@Injectable()
export class ResultDetailsService {
  constructor(private readonly db: DataSource) {}

  /** The analysis must be finished with a result; results stored before `column` existed answer ResultPartMissing. */
  private async finished(analysisId: string): Promise<void> {
    const r = await resultState(this.db, analysisId);
    if (!r) throw new ApiError(Codes.AnalysisResultUnknown);
    if (r.state !== 'finished' || !r.has_result)
      throw new ApiError(Codes.AnalysisUnfinished, `the analysis is ${r.state}: it has no result`);
  }

  private static missing(what: string): ApiError {
    return new ApiError(Codes.ResultPartMissing, `this analysis finished before results kept ${what}: run it again to get them`);
  }

  /** A page of the leaderboard: every configuration evaluated, from the highest pooled out-of-fold primary metric. */
  async configurations(analysisId: string, offset: number, count: number): Promise<Page<LeaderboardRow> & { analysisId: string }> {
    await this.finished(analysisId);
    const r = await leaderboardPage(this.db, analysisId, offset, count);
    if (!r || r.total === null) throw ResultDetailsService.missing('its leaderboard');
    return {
      analysisId,
      offset,
      totalCount: r.total,
      data: (r.page ?? []).map((c, k): LeaderboardRow => ({ rank: offset + k + 1, ...c, value: c.value ?? null })),
    };
  }

  /** The out-of-fold predictions of one model key's configuration, per sample (with `explain`, each one's explanation). */
  async outOfFold(analysisId: string, modelKey: string, explain = false) {
    await this.finished(analysisId);
    const r = await outOfFoldOf(this.db, analysisId, modelKey);
    if (!r) throw new ApiError(Codes.AnalysisResultUnknown);
    if (!Object.prototype.hasOwnProperty.call(r.models, modelKey)) {
      throw new ApiError(Codes.ModelKeyNotFound, `modelKey "${modelKey.slice(0, 60)}" is not one of ${Object.keys(r.models).join(', ')}`);
    }
    if (!r.has_oof || !r.oof) throw ResultDetailsService.missing('out-of-fold predictions');
    const o = r.oof;
    const explained = explain ? o.explanation : undefined;
    if (explain && !explained) throw ResultDetailsService.missing('explanations of its out-of-fold predictions');
    const classes = r.models[modelKey].classes ?? [];
    const predictions = o.rows.map((row, i): OutOfFoldRow => {
      const out: OutOfFoldRow = { row, actual: 0, prediction: 0 };
      if (o.sampleIds) out.sampleId = o.sampleIds[i];
      if (r.task === 'classification') {
        const p = o.values.slice(i * o.width, (i + 1) * o.width);
        let best = 0;
        p.forEach((v, c) => {
          if (v > p[best]) best = c;
        });
        out.actual = classes[o.y[i]];
        out.prediction = classes[best];
        out.probabilities = Object.fromEntries(classes.map((c, k) => [c, p[k]]));
      } else if (r.task === 'survival') {
        out.actual = o.y[i];
        out.event = o.event?.[i];
        out.prediction = o.values[i];
        out.risk = o.values[i];
      } else {
        out.actual = o.y[i];
        out.prediction = o.values[i];
      }
      if (explained) out.explanation = explanationOf(explained, i);
      return out;
    });
    return { analysisId, modelKey, repeats: o.repeats, predictions };
  }

  /** The same as CSV: row, sampleId (when any), actual, event (survival), prediction, one probability column per class, risk. */
  async outOfFoldCsv(analysisId: string, modelKey: string): Promise<string> {
    const { predictions: rows } = await this.outOfFold(analysisId, modelKey);
    const classes = Object.keys(rows[0]?.probabilities ?? {});
    const hasSample = rows.some((r) => r.sampleId !== undefined);
    const survival = rows.some((r) => r.risk !== undefined);
    const header = [
      'row',
      ...(hasSample ? ['sampleId'] : []),
      'actual',
      ...(survival ? ['event'] : []),
      'prediction',
      ...classes.map((c) => `probability:${c}`),
      ...(survival ? ['risk'] : []),
    ];
    const lines = [header.map(csvCell).join(',')];
    for (const r of rows) {
      lines.push(
        [
          r.row,
          ...(hasSample ? [r.sampleId] : []),
          r.actual,
          ...(survival ? [r.event] : []),
          r.prediction,
          ...classes.map((c) => r.probabilities?.[c]),
          ...(survival ? [r.risk] : []),
        ]
          .map(csvCell)
          .join(','),
      );
    }
    return lines.join('\n') + '\n';
  }
}
