import { Codes, ErrorCode } from '../common/error-codes';
import { declaredFields, validateBody } from '../common/validation';
import type { AnalysisParameters, FeatureType } from '../engine/types';
import { ANALYZE_DEFAULTS, AnalyzeDto } from './dto/analyze.dto';

/** The parameters as stored and echoed: the effective values, defaults filled in, plus the dataset. */
export type StoredParameters = AnalysisParameters & { datasetId: string; name: string };

export interface Violation {
  code: ErrorCode;
  message: string;
}

/** The order violations are reported in: unknown fields first, then the fields as AnalyzeDto declares them (docs/api-reference.md's order). */
const FIELD_ORDER = declaredFields(AnalyzeDto);
const rank = (property: string) => FIELD_ORDER.indexOf(property.split('.')[0]) + 1; // unknown fields: 0

/**
 * Checks an analyze body: its shape with AnalyzeDto, then the features it names against the dataset's.
 * Returns every violation (the check endpoint shows them all, analyze refuses with the first) and the
 * effective parameters.
 */
export function checkParameters(
  body: unknown,
  datasetId: string,
  features: { name: string; type: FeatureType }[],
): { violations: Violation[]; parameters?: StoredParameters } {
  const { value: dto, violations: shape } = validateBody(AnalyzeDto, body);
  const found = shape.map((v) => ({ ...v }));
  const bad = new Set(found.map((v) => v.property.split('.')[0]));
  const typeOf = new Map(features.map((f) => [f.name, f.type]));
  const feature = (property: string, name: string, wanted: FeatureType, role: string) => {
    const t = typeOf.get(name);
    const code = !t ? Codes.UnknownOutcomeFeature : Codes.OutcomeFeatureType;
    const message = !t
      ? `${role} "${name.slice(0, 80)}" is not a feature of the dataset`
      : `${role} "${name.slice(0, 80)}" is ${t}; it must be ${wanted}`;
    if (t !== wanted) found.push({ code, message, property });
  };
  if (!bad.has('outcome') && !bad.has('') && dto.outcome) {
    const o = dto.outcome;
    if ('regression' in o) feature('outcome', o.regression, 'numerical', 'the regression outcome');
    else if ('classification' in o) feature('outcome', o.classification, 'categorical', 'the classification outcome');
    else {
      feature('outcome', o.survival.event, 'event', 'the survival event');
      feature('outcome', o.survival.timeToEvent, 'timeToEvent', 'the survival time to event');
    }
  }
  const g = dto.groupingFeature;
  if (!bad.has('groupingFeature') && g !== undefined) {
    const t = typeOf.get(g);
    if (!t)
      found.push({
        code: Codes.UnknownGroupingFeature,
        message: `groupingFeature "${g.slice(0, 80)}" is not a feature of the dataset`,
        property: 'groupingFeature',
      });
    else if (t !== 'identifier') {
      found.push({
        code: Codes.GroupingFeatureType,
        message: `groupingFeature "${g.slice(0, 80)}" is ${t}; it must be an identifier feature`,
        property: 'groupingFeature',
      });
    }
  }
  // a stable sort: each field's own violations keep their order
  const violations = found.sort((a, b) => rank(a.property) - rank(b.property)).map(({ code, message }) => ({ code, message }));
  if (violations.length) return { violations };
  const parameters: StoredParameters = {
    datasetId,
    outcome: dto.outcome,
    ...(g !== undefined ? { groupingFeature: g } : {}),
    modelsConsidered: dto.modelsConsidered ?? ANALYZE_DEFAULTS.modelsConsidered,
    featureSelection: dto.featureSelection ?? ANALYZE_DEFAULTS.featureSelection,
    thoroughness: dto.thoroughness,
    coreCount: dto.coreCount,
    maxSignatureSize: dto.maxSignatureSize ?? ANALYZE_DEFAULTS.maxSignatureSize,
    maxVisualizedSignatureCount: dto.maxVisualizedSignatureCount ?? ANALYZE_DEFAULTS.maxVisualizedSignatureCount,
    name: dto.name,
    ...(dto.timeLimitSeconds !== undefined ? { timeLimitSeconds: dto.timeLimitSeconds } : {}),
  };
  return { violations: [], parameters };
}
