import { Preprocessor } from './preprocessing';
import type { AnalysisParameters, CalibrationFacts, ModelReport, Outcome, SavedPipeline } from './types';

/** One input of a model as its card describes it. */
export interface ModelCardInput {
  name: string;
  type: 'numerical' | 'categorical';
  /** categorical: the levels the model knows (any other value is treated as missing) */
  levels?: string[];
  /** how a missing value is filled: the training mean (numerical) or the training mode (categorical) */
  missing: { rule: 'training mean' | 'training mode'; value: number | string };
  /** numerical: the standardization (x - center) / scale the model reads */
  standardization?: { center: number; scale: number };
  /** categorical: the reference level (no one-hot column of its own: the training mode) */
  referenceLevel?: string;
}

export interface ModelCardMetric {
  /** the estimate on new data, bias-corrected for the choice among configurations */
  estimate: number;
  /** its 95% interval */
  interval?: [number, number];
}

/**
 * What a model is, what it reads and how well it is expected to do: the model card of one signature of one model of an
 * analysis, as plain JSON. `P`: the analysis's parameters as the caller keeps them (the API adds the dataset and name).
 */
export interface ModelCard<P extends { outcome: Outcome } = AnalysisParameters> {
  analysisId?: string;
  modelKey: string;
  signatureIndex: number;
  model: { description: string; preprocessing: string; featureSelection: string };
  inputs: ModelCardInput[];
  outcome: {
    task: 'classification' | 'regression' | 'survival';
    /** the outcome's column(s) in the training dataset */
    columns: Outcome;
    /** classification: the class labels, in the order of the probabilities */
    classes?: string[];
    positiveClass?: string;
    /** survival: the times of the survival probabilities predicted by default (the training times' quartiles) */
    survivalTimes?: number[];
  };
  /** by metric name: the estimate with its interval (the analysis's performance and performanceCis) */
  metrics: Record<string, ModelCardMetric>;
  /** by metric name: the model's own pooled out-of-fold values with their bootstrap intervals, when the result has them */
  pooledMetrics?: Record<string, ModelCardMetric>;
  /** classification: how well calibrated the probabilities are, the calibration map and the probability floor */
  calibration?: CalibrationFacts & { probabilityFloor?: number };
  /** the features of this signature, and the model's other signatures shown (equivalent alternatives) */
  signature: string[];
  equivalents: string[][];
  /** how many equivalent signatures the selection found in all */
  signatureCount: number;
  /** the samples the analysis learned from (those with an outcome) */
  trainingSamples?: number;
  /** `signet-engine <semver>` that fitted the model */
  engine: string;
  parameters: P;
}

export interface ModelCardSource<P extends { outcome: Outcome } = AnalysisParameters> {
  analysisId?: string;
  modelKey: string;
  signatureIndex: number;
  report: ModelReport;
  pipeline: SavedPipeline;
  parameters: P;
  /** the result's mlEngine (for pipelines that do not say which engine fitted them) */
  mlEngine: string;
  trainingSamples?: number;
}

function metrics(
  values: Record<string, number> | undefined,
  cis: Record<string, [number, number]> | undefined,
): Record<string, ModelCardMetric> {
  return Object.fromEntries(
    Object.entries(values ?? {}).map(([name, estimate]) => [name, cis?.[name] ? { estimate, interval: cis[name] } : { estimate }]),
  );
}

function inputsOf(pipeline: SavedPipeline): ModelCardInput[] {
  return Preprocessor.fromJSON(pipeline.preprocessing).steps.map((s): ModelCardInput => {
    if (s.kind === 'numerical')
      return {
        name: s.name,
        type: 'numerical',
        missing: { rule: 'training mean', value: s.impute },
        standardization: { center: s.impute, scale: s.scale },
      };
    return {
      name: s.name,
      type: 'categorical',
      levels: [...s.levels],
      missing: { rule: 'training mode', value: s.levels[s.impute] },
      referenceLevel: s.levels[s.impute],
    };
  });
}

/**
 * The default survival times of a survival model's predictions, as its saved form keeps them (Cox models and survival
 * forests: `timeQuartiles`; none for models saved before they kept them). Read from the JSON, without building the
 * model (a forest's trees).
 */
function survivalTimes(pipeline: SavedPipeline): number[] | undefined {
  if (pipeline.task !== 'survival') return undefined;
  const times = (pipeline.model as { timeQuartiles?: number[] }).timeQuartiles ?? [];
  return times.length > 0 ? [...times] : undefined;
}

/** The model card of one signature of a model of a finished analysis. */
export function modelCard<P extends { outcome: Outcome }>(source: ModelCardSource<P>): ModelCard<P> {
  const { report, pipeline, signatureIndex } = source;
  const times = survivalTimes(pipeline);
  const pooled = report.pooledPerformance ? metrics(report.pooledPerformance, report.pooledPerformanceCis) : undefined;
  const calibration =
    pipeline.task === 'classification' && report.calibration
      ? { ...report.calibration, ...(pipeline.probabilityFloor !== undefined ? { probabilityFloor: pipeline.probabilityFloor } : {}) }
      : undefined;
  return {
    ...(source.analysisId !== undefined ? { analysisId: source.analysisId } : {}),
    modelKey: source.modelKey,
    signatureIndex,
    model: { description: report.model, preprocessing: report.preprocessing, featureSelection: report.featureSelection },
    inputs: inputsOf(pipeline),
    outcome: {
      task: pipeline.task,
      columns: source.parameters.outcome,
      ...(pipeline.task === 'classification' ? { classes: [...pipeline.classes] } : {}),
      ...(report.positiveClass !== undefined ? { positiveClass: report.positiveClass } : {}),
      ...(times ? { survivalTimes: times } : {}),
    },
    metrics: metrics(report.performance, report.performanceCis),
    ...(pooled ? { pooledMetrics: pooled } : {}),
    ...(calibration ? { calibration } : {}),
    signature: report.signatures[signatureIndex] ?? pipeline.featureNames,
    equivalents: report.signatures.filter((_, k) => k !== signatureIndex),
    signatureCount: report.signatureCount,
    ...(source.trainingSamples !== undefined ? { trainingSamples: source.trainingSamples } : {}),
    engine: pipeline.engine ?? source.mlEngine,
    parameters: source.parameters,
  };
}

const number = (v: number): string => String(Number(v.toPrecision(4)));

/** The card as Markdown: the section of the report, and the text beside an exported file. */
export function modelCardMarkdown(card: ModelCard<{ outcome: Outcome }>): string {
  const lines: string[] = [];
  lines.push(`## Model card: ${card.modelKey}, signature ${card.signatureIndex}`, '');
  lines.push(`- Model: ${card.model.description}`, `- Preprocessing: ${card.model.preprocessing}`);
  lines.push(`- Feature selection: ${card.model.featureSelection}`, `- Engine: ${card.engine}`);
  if (card.trainingSamples !== undefined) lines.push(`- Training samples: ${card.trainingSamples}`);
  const outcome = card.outcome;
  lines.push(
    `- Outcome: ${outcome.task} of ${JSON.stringify(Object.values(card.outcome.columns)[0])}` +
      (outcome.classes
        ? ` (classes ${outcome.classes.join(', ')}${outcome.positiveClass ? `; positive: ${outcome.positiveClass}` : ''})`
        : '') +
      (outcome.survivalTimes ? ` (survival at ${outcome.survivalTimes.map(number).join(', ')})` : ''),
    '',
  );
  lines.push('| Input | Type | Levels | Missing values |', '| --- | --- | --- | --- |');
  for (const i of card.inputs)
    lines.push(
      `| ${i.name} | ${i.type} | ${i.levels?.join(', ') ?? ''} | ${i.missing.rule} (${typeof i.missing.value === 'number' ? number(i.missing.value) : i.missing.value}) |`,
    );
  lines.push('', '| Metric | Estimate | 95% interval |', '| --- | --- | --- |');
  for (const [name, m] of Object.entries(card.metrics))
    lines.push(`| ${name} | ${number(m.estimate)} | ${m.interval ? `${number(m.interval[0])} to ${number(m.interval[1])}` : ''} |`);
  lines.push('', `Signature: ${card.signature.join(', ')}`);
  if (card.equivalents.length > 0) lines.push('', 'Equivalent signatures:', ...card.equivalents.map((s) => `- ${s.join(', ')}`));
  return `${lines.join('\n')}\n`;
}
