import type { Calibration } from '../calibration';
import { modelFromJSON } from '../models';
import type { OnnxOutputs } from '../models/common';
import { FeatureStep, Preprocessor } from '../preprocessing';
import type { SavedPipeline } from '../types';
import { mlEngine } from '../version';
import { GraphBuilder } from './graph';
import { DataType, encodeModel } from './proto';

/** Raised for a pipeline whose model cannot be written as an ONNX graph that gives exactly the engine's outputs. */
export class OnnxExportRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'OnnxExportRefused';
  }
}

/** One input of an exported model: a dataset column the pipeline reads, fed as a rows x 1 tensor. */
export interface OnnxInput {
  name: string;
  /** numerical features: doubles, NaN where missing; categorical: their level as text, '' (or any unknown level) where missing */
  type: 'double' | 'string';
  /** categorical: the levels the model knows */
  levels?: string[];
}

/** One output of an exported model. */
export interface OnnxOutput {
  name: string;
  type: 'double' | 'string';
  /** 'rows' for one value per row; else rows x width */
  shape: ['rows'] | ['rows', number];
  description: string;
}

export interface OnnxExport {
  /** the ONNX file */
  bytes: Uint8Array;
  inputs: OnnxInput[];
  outputs: OnnxOutput[];
  /** survival models with survival outputs: the times of the `survival` columns */
  survivalTimes?: number[];
}

export interface OnnxExportOptions {
  /** the graph's name */
  name?: string;
  /** text written into the model's doc string */
  description?: string;
  /** metadata entries written into the model (key -> value) */
  metadata?: Record<string, string>;
}

/** The names of the outputs, by what they hold; one that a feature already has gets "_output" added. */
const OUTPUT_NAMES = {
  label: 'label',
  probabilities: 'probabilities',
  prediction: 'prediction',
  risk: 'risk',
  relativeRisk: 'relative_risk',
  survival: 'survival',
  median: 'median_survival_time',
} as const;

function outputNames(features: string[]): Record<keyof typeof OUTPUT_NAMES, string> {
  const taken = new Set(features);
  const out = {} as Record<keyof typeof OUTPUT_NAMES, string>;
  for (const [key, name] of Object.entries(OUTPUT_NAMES) as [keyof typeof OUTPUT_NAMES, string][]) {
    let n = name;
    while (taken.has(n)) n = `${n}_output`;
    taken.add(n);
    out[key] = n;
  }
  return out;
}

/**
 * One input's design columns (rows x 1 numerical, rows x levels-1 categorical), as Preprocessor.transform computes them:
 * a missing number is the training mean, then (x - mean) / sd; a category is coded by name (unknown or missing = the
 * training mode), then each one-hot column (code = level) is centred and scaled.
 */
function featureColumns(g: GraphBuilder, step: FeatureStep): string {
  if (step.kind === 'numerical') {
    const x = g.input(step.name, DataType.DOUBLE, ['rows', 1], 'a number; NaN where missing');
    const mean = g.scalar(step.impute, 'mean');
    const imputed = g.op('Where', [g.op('IsNaN', [x]), mean, x]);
    return g.div(g.sub(imputed, mean), g.scalar(step.scale, 'sd'));
  }
  const x = g.input(step.name, DataType.STRING, ['rows', 1], `one of the levels ${step.levels.join(', ')}; '' where missing`);
  const code = g.op(
    'LabelEncoder',
    [x],
    { keys_strings: step.levels, values_int64s: step.levels.map((_, k) => k), default_int64: step.impute },
    'ai.onnx.ml',
  );
  const m = step.dummyCodes.length;
  const dummies = g.op('Cast', [g.op('Equal', [code, g.int64s(step.dummyCodes, [1, m], 'levels')])], { to: DataType.DOUBLE });
  return g.div(g.sub(dummies, g.doubles(step.dummyCenters, [1, m], 'centers')), g.doubles(step.dummyScales, [1, m], 'scales'));
}

/** floor + (1 - K floor) p (floorProbabilities). */
function floored(g: GraphBuilder, p: string, K: number, floor: number | undefined): string {
  if (!(floor !== undefined && floor > 0)) return p;
  return g.add(g.scalar(floor, 'floor'), g.mul(g.scalar(1 - K * floor), p));
}

const EPS = 1e-12;

/** The calibration map of the probabilities `p` (applyCalibration). */
function calibrated(g: GraphBuilder, p: string, K: number, cal: Calibration): string {
  if (cal.method === 'isotonic')
    throw new OnnxExportRefused(
      'its probabilities go through an isotonic calibration map (results of engine 0.2), which the export does not write: run the analysis again',
    );
  if (cal.method === 'temperature') return g.op('Softmax', [g.mul(g.op('Log', [p]), g.scalar(1 / cal.temperature))], { axis: 1 });
  // Platt: sigmoid(a logit(q) + b), q kept within [1e-12, 1 - 1e-12]
  const platt = (q: string, a: string, b: string): string => {
    const held = g.op('Min', [g.op('Max', [q, g.scalar(EPS)]), g.scalar(1 - EPS)]);
    const logit = g.op('Log', [g.div(held, g.sub(g.scalar(1), held))]);
    return g.sigmoid(g.add(g.mul(a, logit), b));
  };
  if (K === 2) {
    const q = platt(g.op('Slice', [p, g.int64s([1]), g.int64s([2]), g.int64s([1])]), g.scalar(cal.a[0]), g.scalar(cal.b[0]));
    return g.concat([g.sub(g.scalar(1), q), q]);
  }
  // engine 0.2's one map per class, renormalised (1 / K each where all are 0)
  const each = platt(p, g.doubles(cal.a, [1, K]), g.doubles(cal.b, [1, K]));
  const sum = g.op('ReduceSum', [each, g.int64s([1])], { keepdims: 1 });
  return g.op('Where', [g.op('Greater', [sum, g.scalar(0)]), g.div(each, sum), g.scalar(1 / K)]);
}

/**
 * The ONNX model of a saved pipeline: one input per feature it reads (named after it), its preprocessing, its model,
 * for a classifier the probability floor and calibration map, and the outputs the predict route gives, all in doubles.
 * Throws OnnxExportRefused for a pipeline that cannot be exported exactly (a model reading no feature, an isotonic map).
 */
export function exportOnnx(saved: SavedPipeline, options: OnnxExportOptions = {}): OnnxExport {
  const pre = Preprocessor.fromJSON(saved.preprocessing);
  const model = modelFromJSON(saved.model);
  const features = pre.steps.map((s) => s.name);
  const names = outputNames(features);
  const g = new GraphBuilder([...features, ...Object.values(names)]);
  const columns = pre.steps.map((step) => featureColumns(g, step));
  if (columns.length === 0)
    throw new OnnxExportRefused('this model reads no feature (its signature is empty): it gives every row the same prediction');
  const X = g.concat(columns);
  if (!model.onnx) throw new OnnxExportRefused('this kind of model has no ONNX export');
  const parts: OnnxOutputs = model.onnx(g, X);
  const times = parts.survivalTimes ?? [];
  const outputs: OnnxOutput[] = [];
  const put = (name: string, value: string, width: number | undefined, type: 'double' | 'string', description: string): void => {
    g.output(
      name,
      value,
      type === 'double' ? DataType.DOUBLE : DataType.STRING,
      width === undefined ? ['rows'] : ['rows', width],
      description,
    );
    outputs.push({ name, type, shape: width === undefined ? ['rows'] : ['rows', width], description });
  };
  let survivalTimes: number[] | undefined;
  if (saved.task === 'classification') {
    const K = saved.classes.length;
    let p = floored(g, parts.probabilities as string, K, saved.probabilityFloor);
    if (saved.calibration) p = floored(g, calibrated(g, p, K, saved.calibration), K, saved.probabilityFloor);
    const best = g.op('ArgMax', [p], { axis: 1, keepdims: 0 });
    put(
      names.label,
      g.op('Gather', [g.strings(saved.classes, [K], 'classes'), best]),
      undefined,
      'string',
      'the predicted class: the most probable',
    );
    put(names.probabilities, p, K, 'double', `the probability of each class, in the order ${saved.classes.join(', ')}`);
  } else if (saved.task === 'regression') {
    put(names.prediction, g.flatten(parts.value as string), undefined, 'double', 'the predicted value');
  } else {
    put(names.risk, g.flatten(parts.risk as string), undefined, 'double', 'the risk score (higher = earlier event)');
    if (parts.relativeRisk) put(names.relativeRisk, g.flatten(parts.relativeRisk), undefined, 'double', 'the relative risk exp(risk)');
    if (parts.survival) {
      survivalTimes = [...times];
      put(names.survival, parts.survival, times.length, 'double', `the probability of surviving past each time: ${times.join(', ')}`);
    }
    if (parts.median)
      put(
        names.median,
        g.flatten(parts.median),
        undefined,
        'double',
        'the first event time at which the survival falls to 0.5 or below; NaN where it does not',
      );
  }
  const metadata: Record<string, string> = {
    task: saved.task,
    engine: saved.engine ?? mlEngine(),
    ...(saved.task === 'classification' ? { classes: JSON.stringify(saved.classes) } : {}),
    ...(survivalTimes ? { survival_times: JSON.stringify(survivalTimes) } : {}),
    ...options.metadata,
  };
  const bytes = encodeModel(
    g.model({
      name: options.name ?? 'signet_pipeline',
      docString: options.description ?? 'A Signet pipeline: preprocessing, model and calibration',
      producerVersion: mlEngine(),
      metadata,
    }),
  );
  const inputs = pre.steps.map((s): OnnxInput =>
    s.kind === 'numerical' ? { name: s.name, type: 'double' } : { name: s.name, type: 'string', levels: [...s.levels] },
  );
  return { bytes, inputs, outputs, ...(survivalTimes ? { survivalTimes } : {}) };
}
