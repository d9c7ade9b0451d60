/**
 * Signet's analysis engine: a library with no Nest, database or HTTP. See ./types.ts for the contract.
 */
import { PredictOptions, predictPipeline } from './pipeline';
import type { EngineDataset, PredictionRow, SavedPipeline } from './types';

export * from './types';
export { ENGINE_VERSION, mlEngine } from './version';
export { EngineInputError, EngineAbortError } from './errors';
export { runAnalysis } from './protocol';
export { estimateCost } from './cost';
export type { AnalysisShape, CostEstimate, CostInterval } from './cost';
export { validateAnalysisInput, eventIndicator } from './data';
export { GRID, buildGrid } from './grid';
export { computeMetrics, auc, concordanceIndex, metricNames } from './metrics';
export type { FeatureSelector, SelectionInput } from './selection';
export { exportOnnx, OnnxExportRefused } from './onnx/export';
export type { OnnxExport, OnnxExportOptions, OnnxInput, OnnxOutput } from './onnx/export';
export { modelCard, modelCardMarkdown } from './model-card';
export type { ModelCard, ModelCardInput, ModelCardMetric, ModelCardSource } from './model-card';

/**
 * Predictions of a saved pipeline. Columns are matched by name (extra ones ignored); throws
 * EngineInputError for a missing column the model uses, a wrong column type, or no rows. Unseen
 * categorical levels are treated as missing and imputed. Survival models (Cox) add survival probabilities at
 * `options.times` (default: the quartiles of the training times) and the median survival time.
 */
export function predict(pipeline: SavedPipeline, data: EngineDataset, options: PredictOptions = {}): PredictionRow[] {
  return predictPipeline(pipeline, data, options);
}
export type { PredictOptions };
