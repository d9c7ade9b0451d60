import { Codes, ErrorCode } from '../common/error-codes';
import type { AnalysisParameters, FeatureType, Outcome } from '../engine/types';

/** The parameters as stored and echoed: the effective values, defaults filled in, plus the dataset. */
export type StoredParameters = AnalysisParameters & { datasetId: string; name: string };

export interface Violation {
  code: ErrorCode;
  message: string;
}

const THOROUGHNESS = ['preliminary', 'typical', 'extensive'];
const MODELS = ['interpretable', 'all'];
const SELECTION = ['mostRelevant', 'mostRelevantOrAll'];
const FIELDS = new Set([
  'outcome', 'groupingFeature', 'modelsConsidered', 'featureSelection', 'thoroughness',
  'coreCount', 'maxSignatureSize', 'maxVisualizedSignatureCount', 'name',
]);

const isPositiveInt = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0;

/**
 * Checks an analyze body against api-v1.md and the dataset's features; returns every violation (the
 * check endpoint shows them all, analyze refuses with the first) and the effective parameters.
 */
export function checkParameters(
  body: unknown,
  datasetId: string,
  features: { name: string; type: FeatureType }[],
): { violations: Violation[]; parameters?: StoredParameters } {
  const v: Violation[] = [];
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { violations: [{ code: Codes.MalformedBody, message: 'the body must be a JSON object' }] };
  }
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!FIELDS.has(key)) v.push({ code: Codes.UnknownField, message: `unknown parameter "${key.slice(0, 60)}"` });
  }
  const typeOf = new Map(features.map((f) => [f.name, f.type]));
  const feature = (name: unknown, wanted: FeatureType, role: string) => {
    if (typeof name !== 'string' || !name) {
      v.push({ code: Codes.BadOutcome, message: `${role} must name a feature` });
      return;
    }
    const t = typeOf.get(name);
    if (!t) v.push({ code: Codes.UnknownOutcomeFeature, message: `${role} "${name.slice(0, 80)}" is not a feature of the dataset` });
    else if (t !== wanted) {
      v.push({ code: Codes.OutcomeFeatureType, message: `${role} "${name.slice(0, 80)}" is ${t}; it must be ${wanted}` });
    }
  };

  let outcome: Outcome | undefined;
  const o = b.outcome;
  if (o === undefined) v.push({ code: Codes.MissingField, message: 'outcome is required' });
  else if (!o || typeof o !== 'object' || Array.isArray(o) || Object.keys(o).length !== 1) {
    v.push({ code: Codes.BadOutcome, message: 'outcome must be one of { regression }, { classification }, { survival }' });
  } else {
    const oo = o as Record<string, unknown>;
    if ('regression' in oo) {
      feature(oo.regression, 'numerical', 'the regression outcome');
      outcome = { regression: oo.regression as string };
    } else if ('classification' in oo) {
      feature(oo.classification, 'categorical', 'the classification outcome');
      outcome = { classification: oo.classification as string };
    } else if ('survival' in oo) {
      const s = oo.survival as Record<string, unknown> | null;
      if (!s || typeof s !== 'object' || Array.isArray(s) || Object.keys(s).some((k) => k !== 'event' && k !== 'timeToEvent')) {
        v.push({ code: Codes.BadOutcome, message: 'survival must be { event, timeToEvent }' });
      } else {
        feature(s.event, 'event', 'the survival event');
        feature(s.timeToEvent, 'timeToEvent', 'the survival time to event');
        outcome = { survival: { event: s.event as string, timeToEvent: s.timeToEvent as string } };
      }
    } else {
      v.push({ code: Codes.BadOutcome, message: 'outcome must be one of { regression }, { classification }, { survival }' });
    }
  }

  const required = (key: string) => {
    if (b[key] === undefined) v.push({ code: Codes.MissingField, message: `${key} is required` });
    return b[key] !== undefined;
  };
  const oneOf = (key: string, allowed: string[], c: ErrorCode) => {
    if (b[key] !== undefined && !(typeof b[key] === 'string' && allowed.includes(b[key] as string))) {
      v.push({ code: c, message: `${key} must be one of ${allowed.join(', ')}` });
    }
  };
  const positive = (key: string, c: ErrorCode) => {
    if (b[key] !== undefined && !isPositiveInt(b[key])) v.push({ code: c, message: `${key} must be a positive integer` });
  };

  if (required('thoroughness')) oneOf('thoroughness', THOROUGHNESS, Codes.BadThoroughness);
  oneOf('modelsConsidered', MODELS, Codes.BadModelsConsidered);
  oneOf('featureSelection', SELECTION, Codes.BadFeatureSelection);
  if (required('coreCount')) positive('coreCount', Codes.BadCoreCount);
  positive('maxSignatureSize', Codes.BadMaxSignatureSize);
  positive('maxVisualizedSignatureCount', Codes.BadMaxVisualizedSignatureCount);
  if (required('name') && !(typeof b.name === 'string' && b.name.length >= 1 && b.name.length <= 120)) {
    v.push({ code: Codes.BadAnalysisName, message: 'name must be a string of 1 to 120 characters' });
  }
  if (b.groupingFeature !== undefined) {
    const g = b.groupingFeature;
    const t = typeof g === 'string' ? typeOf.get(g) : undefined;
    if (!t) v.push({ code: Codes.UnknownGroupingFeature, message: `groupingFeature "${String(g).slice(0, 80)}" is not a feature of the dataset` });
    else if (t !== 'identifier') {
      v.push({ code: Codes.GroupingFeatureType, message: `groupingFeature "${g}" is ${t}; it must be an identifier feature` });
    }
  }
  if (v.length || !outcome) return { violations: v };
  const parameters: StoredParameters = {
    datasetId,
    outcome,
    ...(b.groupingFeature !== undefined ? { groupingFeature: b.groupingFeature as string } : {}),
    modelsConsidered: (b.modelsConsidered as StoredParameters['modelsConsidered']) ?? 'all',
    featureSelection: (b.featureSelection as StoredParameters['featureSelection']) ?? 'mostRelevant',
    thoroughness: b.thoroughness as StoredParameters['thoroughness'],
    coreCount: b.coreCount as number,
    maxSignatureSize: (b.maxSignatureSize as number) ?? 25,
    maxVisualizedSignatureCount: (b.maxVisualizedSignatureCount as number) ?? 5,
    name: b.name as string,
  };
  return { violations: [], parameters };
}
