import { Injectable } from '@nestjs/common';
import { AnalysesService } from '../analyses/analyses.service';
import { ApiError } from '../common/api-error';
import { Codes } from '../common/error-codes';
import type { ModelPlots } from '../engine/types';

/** Plot names in the order clients see them (api-v1's Plot resource). */
const ORDER = ['Feature Importance', 'Progressive Feature Importance', 'Feature Stability'];

function names(plots: ModelPlots): string[] {
  const present = Object.keys(plots).filter((k) => Array.isArray((plots as Record<string, unknown>)[k]));
  return present.sort((a, b) => (ORDER.indexOf(a) + 1 || 99) - (ORDER.indexOf(b) + 1 || 99));
}

@Injectable()
export class PlotsService {
  constructor(private readonly analyses: AnalysesService) {}

  async available(analysisId: string, modelKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    return { analysisId, modelKey: m.modelKey, plots: names(m.plots) };
  }

  async plot(analysisId: string, modelKey: string, plotKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    if (!names(m.plots).includes(plotKey)) {
      throw new ApiError(
        Codes.PlotKeyNotFound,
        `plotKey "${plotKey.slice(0, 60)}" is not available; available: ${names(m.plots).join(', ')}`,
      );
    }
    return { analysisId, modelKey: m.modelKey, plot: { [plotKey]: (m.plots as Record<string, unknown>)[plotKey] } };
  }

  async all(analysisId: string, modelKey: string) {
    const m = await this.analyses.plotsOf(analysisId, modelKey);
    return {
      analysisId,
      modelKey: m.modelKey,
      plots: names(m.plots).map((k) => ({ [k]: (m.plots as Record<string, unknown>)[k] })),
    };
  }
}
