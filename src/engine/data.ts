import { EngineInputError } from './errors';
import type { Task } from './metrics';
import type { AnalysisParameters, CodedColumn, EngineColumn, EngineDataset, NumericColumn } from './types';

/** A model input feature: numerical values, or category codes into `levels`. */
export interface FeatureMeta {
  name: string;
  kind: 'numerical' | 'categorical';
  levels: string[];
}

/**
 * The analysis data in the engine's working form: samples with a missing outcome dropped, model input
 * features in one column-major matrix (numbers or category codes, NaN = missing), which can live in a
 * SharedArrayBuffer so worker threads read it without copies.
 */
export interface PreparedData {
  task: Task;
  /** samples kept */
  n: number;
  /** original row of each kept sample */
  rows: Int32Array;
  features: FeatureMeta[];
  /** column-major n x features.length */
  X: Float64Array;
  /** class index, value, or time */
  y: Float64Array;
  /** survival: 1 = event, 0 = censored */
  event?: Float64Array;
  /** classification: class labels, sorted; y indexes them */
  classes: string[];
  /** group id per sample when a grouping feature is set */
  groups?: Int32Array;
}

/** Classification outcomes with more classes are refused (multinomial fits grow with the square of it). */
export const MAX_CLASSES = 100;

const EVENT_LEVEL = /^(1|true|yes|dead|deceased|died|event|relapse)$/i;

function isCoded(c: EngineColumn): c is CodedColumn {
  return (c as CodedColumn).codes !== undefined;
}

function findColumn(data: EngineDataset, name: string): EngineColumn | undefined {
  return data.columns.find((c) => c.name === name);
}

/**
 * The event indicator of a survival outcome (1 event, 0 censored, NaN missing). Numeric column: the larger
 * of its two distinct values is the event (0/1 -> 1, R's 1/2 -> 2). Coded column: a level matching
 * /^(1|true|yes|dead|deceased|died|event|relapse)$/i is the event, else the second level in sorted order.
 */
export function eventIndicator(column: EngineColumn): Float64Array {
  if (isCoded(column)) {
    const used = [...new Set(Array.from(column.codes).filter((c) => c >= 0))].map((c) => column.levels[c]);
    const sorted = [...used].sort();
    const eventLevel = sorted.find((l) => EVENT_LEVEL.test(l.trim())) ?? sorted[1] ?? sorted[0];
    return Float64Array.from(column.codes, (c) => (c < 0 ? NaN : column.levels[c] === eventLevel ? 1 : 0));
  }
  const values = column.values;
  let max = -Infinity;
  let min = Infinity;
  for (const v of values) {
    if (Number.isNaN(v)) continue;
    if (v > max) max = v;
    if (v < min) min = v;
  }
  // a single distinct value: 0 means censored, anything else an event
  if (max === min && max === 0) return Float64Array.from(values, (v) => (Number.isNaN(v) ? NaN : 0));
  return Float64Array.from(values, (v) => (Number.isNaN(v) ? NaN : v === max ? 1 : 0));
}

export function taskOf(params: AnalysisParameters): Task {
  const o = params.outcome;
  if ('classification' in o) return 'classification';
  if ('regression' in o) return 'regression';
  return 'survival';
}

function outcomeColumns(params: AnalysisParameters): string[] {
  const o = params.outcome;
  if ('classification' in o) return [o.classification];
  if ('regression' in o) return [o.regression];
  return [o.survival.timeToEvent, o.survival.event];
}

function labelsOf(column: EngineColumn): (string | null)[] {
  if (isCoded(column)) return Array.from(column.codes, (c) => (c < 0 ? null : column.levels[c]));
  return Array.from(column.values, (v) => (Number.isNaN(v) ? null : String(v)));
}

interface OutcomeValues {
  y: Float64Array;
  event?: Float64Array;
  classes: string[];
}

function outcomeValues(data: EngineDataset, params: AnalysisParameters, problems: string[]): OutcomeValues | null {
  const task = taskOf(params);
  const names = outcomeColumns(params);
  const cols = names.map((n) => findColumn(data, n));
  cols.forEach((c, i) => {
    if (!c) problems.push(`The outcome column "${names[i]}" does not exist`);
  });
  if (cols.some((c) => !c)) return null;
  if (task === 'classification') {
    const labels = labelsOf(cols[0] as EngineColumn);
    const classes = [...new Set(labels.filter((l): l is string => l !== null))].sort();
    const index = new Map(classes.map((c, i) => [c, i]));
    return { y: Float64Array.from(labels, (l) => (l === null ? NaN : (index.get(l) as number))), classes };
  }
  if (task === 'regression') {
    const c = cols[0] as EngineColumn;
    if (isCoded(c) || c.type !== 'numerical') {
      problems.push(`The regression outcome "${c.name}" must be numerical`);
      return null;
    }
    return { y: Float64Array.from(c.values), classes: [] };
  }
  const [timeCol, eventCol] = cols as EngineColumn[];
  if (isCoded(timeCol)) {
    problems.push(`The survival time "${timeCol.name}" must be numerical`);
    return null;
  }
  return { y: Float64Array.from(timeCol.values), event: eventIndicator(eventCol), classes: [] };
}

/** Problems that prevent an analysis (empty when the input can be analyzed). */
export function validateAnalysisInput(data: EngineDataset, params: AnalysisParameters): string[] {
  const problems: string[] = [];
  const out = outcomeValues(data, params, problems);
  if (params.groupingFeature !== undefined && !findColumn(data, params.groupingFeature))
    problems.push(`The grouping feature "${params.groupingFeature}" does not exist`);
  if (!out) return problems;
  const task = taskOf(params);
  const keep: number[] = [];
  for (let i = 0; i < data.sampleCount; i++) {
    if (Number.isNaN(out.y[i]) || (out.event && Number.isNaN(out.event[i]))) continue;
    keep.push(i);
  }
  if (keep.length === 0) problems.push('The outcome is missing for every sample');
  else if (keep.length < 10) problems.push(`Too few samples with an outcome: ${keep.length} (at least 10 are needed)`);
  if (keep.length > 0) {
    if (task === 'classification') {
      const long = out.classes.filter((c) => c.length > MAX_CLASS_LABEL);
      if (long.length) {
        problems.push(
          `The outcome has a class label longer than ${MAX_CLASS_LABEL} characters ("${long[0].slice(0, 40)}..."): shorten it (each prediction repeats the labels)`,
        );
      }
      const counts = new Map<number, number>();
      for (const i of keep) counts.set(out.y[i], (counts.get(out.y[i]) ?? 0) + 1);
      if (counts.size < 2) problems.push('The outcome has a single class');
      if (counts.size > MAX_CLASSES) problems.push(`The outcome has ${counts.size} classes (at most ${MAX_CLASSES} are supported)`);
      // the cross-validation holds out at least one of MIN_CLASS_SAMPLES folds: a rarer class is missing from the
      // training data or from the test data of every fold, and its metrics came out contradictory (AUC 0.25 and
      // Balanced Accuracy 0.83 beside Sensitivity 0)
      const rare = [...counts].filter(([, n]) => n < MIN_CLASS_SAMPLES).map(([c, n]) => `"${out.classes[c].slice(0, 40)}" (${n})`);
      if (counts.size >= 2 && rare.length) {
        problems.push(
          `The class${rare.length > 1 ? 'es' : ''} ${rare.slice(0, 5).join(', ')}${rare.length > 5 ? ` and ${rare.length - 5} more` : ''} of the outcome ${rare.length > 1 ? 'have' : 'has'} fewer than ${MIN_CLASS_SAMPLES} samples: the cross-validation needs each class in the training and the test data of every fold (merge rare classes, or remove their samples)`,
        );
      }
    } else if (task === 'regression') {
      let min = Infinity;
      let max = -Infinity;
      for (const i of keep) {
        min = Math.min(min, out.y[i]);
        max = Math.max(max, out.y[i]);
      }
      if (min === max) problems.push('The outcome is constant');
      else if (max - min < MIN_SPREAD) {
        // squares of such differences underflow to 0: R squared came out undefined, and the analysis failed with a
        // message about classes
        problems.push(
          `The outcome's values differ by at most ${(max - min).toPrecision(3)}: rescale it (multiply it by a power of ten; the engine squares differences, which would underflow to 0)`,
        );
      }
    } else {
      const events = keep.reduce((n, i) => n + (out.event?.[i] === 1 ? 1 : 0), 0);
      if (events === 0) problems.push('No sample has an event');
      else if (events < MIN_EVENTS) {
        problems.push(
          `Only ${events} sample has an event: the concordance index needs at least ${MIN_EVENTS} (one in the test data of each fold) to be estimated`,
        );
      }
      if (keep.some((i) => out.y[i] < 0)) problems.push('Survival times must not be negative');
      else if (keep.every((i) => out.y[i] === out.y[keep[0]])) {
        problems.push(
          `Every survival time is ${out.y[keep[0]]}: the concordance index compares samples whose times differ, so it cannot be estimated`,
        );
      }
    }
  }
  if (keep.length > 0 && params.groupingFeature !== undefined) problems.push(...groupProblems(data, params, out, keep));
  const features = featureColumns(data, params);
  if (features.length === 0) problems.push('No feature is left to model the outcome');
  for (const c of [...cols(data, outcomeColumns(params)), ...features]) {
    const big = isCoded(c) ? undefined : c.values.find((v) => Math.abs(v) > MAX_MAGNITUDE);
    if (big !== undefined) {
      problems.push(
        `The column "${c.name}" holds values beyond ±1e100 (such as ${big.toPrecision(3)}): rescale it (the engine squares values, which would overflow)`,
      );
    }
  }
  return problems;
}

/**
 * What makes a grouping unusable for cross-validation, which holds whole groups out: a single group (nothing to
 * hold out: every estimate was empty, and the result all null), or a class found in one group only (a model trained
 * without that group never sees the class).
 */
function groupProblems(data: EngineDataset, params: AnalysisParameters, out: OutcomeValues, keep: number[]): string[] {
  const name = params.groupingFeature as string;
  const column = findColumn(data, name);
  if (!column) return [];
  const labels = labelsOf(column);
  // a sample without a group value is a group of its own, as the folds treat it
  const groupOf = (i: number) => labels[i] ?? `\u0000missing-${i}`;
  const groups = new Set(keep.map(groupOf));
  if (groups.size < 2) {
    return [`The grouping feature "${name}" has a single group among the samples with an outcome: at least 2 are needed to hold one out`];
  }
  if (taskOf(params) !== 'classification') return [];
  const groupsOfClass = new Map<number, Set<string>>();
  for (const i of keep) {
    const set = groupsOfClass.get(out.y[i]) ?? new Set<string>();
    set.add(groupOf(i));
    groupsOfClass.set(out.y[i], set);
  }
  const lonely = [...groupsOfClass].filter(([, g]) => g.size < 2).map(([c]) => `"${out.classes[c]}"`);
  if (!lonely.length) return [];
  return [
    `The class${lonely.length > 1 ? 'es' : ''} ${lonely.slice(0, 5).join(', ')} of the outcome ${lonely.length > 1 ? 'are' : 'is'} found in a single group of "${name}": a model trained without that group never sees ${lonely.length > 1 ? 'them' : 'it'} (each class needs at least 2 groups)`,
  ];
}

/** Samples each class of a classification outcome needs: the folds' lower bound (folds.ts: K is at least 2). */
export const MIN_CLASS_SAMPLES = 2;

/** Events a survival outcome needs for its concordance index to be estimated in the held-out data. */
export const MIN_EVENTS = 2;

/** The longest class label of a classification outcome (as a column name). */
export const MAX_CLASS_LABEL = 200;

/** The smallest spread (largest minus smallest value) a regression outcome may have: squares of 1e-100 stay far from underflow. */
export const MIN_SPREAD = 1e-100;

/** The largest magnitude a numerical outcome or feature may have: sums of squares of 1e100 stay far from overflow. */
export const MAX_MAGNITUDE = 1e100;

/** The named columns that exist. */
function cols(data: EngineDataset, names: string[]): EngineColumn[] {
  return names.map((n) => findColumn(data, n)).filter((c): c is EngineColumn => c !== undefined);
}

/** Columns that are model inputs: numerical and categorical, never identifiers, the outcome or the grouping feature. */
function featureColumns(data: EngineDataset, params: AnalysisParameters): (NumericColumn | CodedColumn)[] {
  const excluded = new Set(outcomeColumns(params));
  if (params.groupingFeature !== undefined) excluded.add(params.groupingFeature);
  return data.columns.filter(
    (c): c is NumericColumn | CodedColumn => !excluded.has(c.name) && (c.type === 'numerical' || c.type === 'categorical'),
  );
}

/** Builds the working form; throws EngineInputError when validateAnalysisInput finds a problem. */
export function prepareData(data: EngineDataset, params: AnalysisParameters, shared = false): PreparedData {
  const problems = validateAnalysisInput(data, params);
  if (problems.length > 0) throw new EngineInputError(problems.join('; '));
  const out = outcomeValues(data, params, problems) as OutcomeValues;
  const rows: number[] = [];
  for (let i = 0; i < data.sampleCount; i++) {
    if (Number.isNaN(out.y[i]) || (out.event && Number.isNaN(out.event[i]))) continue;
    rows.push(i);
  }
  const n = rows.length;
  const cols = featureColumns(data, params);
  const p = cols.length;
  const buffer = shared ? new SharedArrayBuffer(8 * n * p) : new ArrayBuffer(8 * n * p);
  const X = new Float64Array(buffer);
  const features: FeatureMeta[] = cols.map((c, j) => {
    if (isCoded(c)) {
      for (let k = 0; k < n; k++) {
        const code = c.codes[rows[k]];
        X[j * n + k] = code < 0 ? NaN : code;
      }
      return { name: c.name, kind: 'categorical', levels: [...c.levels] };
    }
    for (let k = 0; k < n; k++) X[j * n + k] = c.values[rows[k]];
    return { name: c.name, kind: 'numerical', levels: [] };
  });
  let groups: Int32Array | undefined;
  if (params.groupingFeature !== undefined) {
    const g = labelsOf(findColumn(data, params.groupingFeature) as EngineColumn);
    const ids = new Map<string, number>();
    groups = Int32Array.from(rows, (r, k) => {
      const key = g[r] ?? `\u0000missing-${k}`;
      if (!ids.has(key)) ids.set(key, ids.size);
      return ids.get(key) as number;
    });
  }
  const pick = (a: Float64Array): Float64Array => Float64Array.from(rows, (r) => a[r]);
  return {
    task: taskOf(params),
    n,
    rows: Int32Array.from(rows),
    features,
    X,
    y: pick(out.y),
    event: out.event ? pick(out.event) : undefined,
    classes: out.classes,
    groups,
  };
}
