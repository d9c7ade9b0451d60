import type { SchemaObject } from '@nestjs/swagger';
import { refTo } from '../common/api-schema';
import { PLOT_KINDS } from '../engine/plots';
import { Kind } from '@sinclair/typebox';
import type { TSchema } from '@sinclair/typebox';

/**
 * The document's component schemas, made of the payloads' TypeBox declarations (src/common/api-schema.ts). A schema
 * with an `$id` is a component of that name wherever it is used: the first use defines it, every use refers to it
 * (`$ref`). TypeBox writes a node's options (description, format, bounds) before its own keys (type, properties,
 * required, items); the document has a node's own keys first, then its options, and `required` on every object:
 * that is the order written here. What a declaration writes as raw JSON Schema (`Type.Unsafe`: enums, maps, choices,
 * and the engine's plot schemas) is kept as written.
 */
const OWN_KEYS = ['type', 'properties', 'required', 'items'];

/** The name a payload schema is a component under. */
export function componentName(schema: TSchema): string {
  if (typeof schema.$id !== 'string') throw new Error(`OpenAPI: a payload schema has no $id (${JSON.stringify(schema).slice(0, 80)})`);
  return schema.$id;
}

/**
 * The named schemas in the order the document has listed them since v1 (new ones in their place), kept so that its
 * bytes do not change; a component not listed follows them in the order the routes first use it.
 */
const V1_ORDER = [
  'RegressionOutcome',
  'ClassificationOutcome',
  'SurvivalOutcome',
  'Empty',
  'Token',
  'Version',
  'Health',
  'StatusError',
  'ProjectRef',
  'Project',
  'ProjectPage',
  'Share',
  'Unshare',
  'UploadedFile',
  'File',
  'FilePage',
  'TaskRef',
  'TaskStatus',
  'Dataset',
  'DatasetPage',
  'Features',
  'AnalysisParameters',
  'AnalysisRef',
  'AnalysisCheck',
  'Analysis',
  'AnalysisPage',
  'AnalysisStatus',
  'Model',
  'AnalysisResult',
  // one per plot kind, in the registry's order
  ...PLOT_KINDS.map((kind) => kind.schemaName),
  'Plot',
  'AvailablePlots',
  'PlotOne',
  'PlotAll',
  'Configuration',
  'ConfigurationPage',
  'OutOfFoldPredictions',
  'Explanation',
  'PredictionRef',
  'Prediction',
  'PredictionStatus',
  'PredictionPage',
  'PredictionResult',
];

/** Collects the components the payloads use, each rendered once. */
export class Components {
  private readonly schemas = new Map<string, SchemaObject>();
  private readonly sources = new Map<string, unknown>();

  /** Adds `schema` (a named payload) and every named schema inside it; returns its name. */
  add(schema: TSchema): string {
    const name = componentName(schema);
    this.define(name, schema);
    return name;
  }

  /** The components by name: v1's in their first order, then the others as they were first used. */
  all(): Record<string, SchemaObject> {
    const rank = (name: string) => (V1_ORDER.indexOf(name) + 1 || V1_ORDER.length + 1) - 1;
    const names = [...this.schemas.keys()].map((name, i) => ({ name, i })).sort((a, b) => rank(a.name) - rank(b.name) || a.i - b.i);
    return Object.fromEntries(names.map(({ name }) => [name, this.schemas.get(name) as SchemaObject]));
  }

  private define(name: string, schema: unknown): void {
    const known = this.sources.get(name);
    if (known === schema) return;
    if (known !== undefined && JSON.stringify(known) !== JSON.stringify(schema)) {
      throw new Error(`OpenAPI: two different schemas are named ${name}`);
    }
    if (known !== undefined) return;
    this.sources.set(name, schema);
    // reserve the place first: the order of first use is kept even for what its rendering adds
    this.schemas.set(name, {});
    this.schemas.set(name, this.render(schema, true) as SchemaObject);
  }

  private render(node: unknown, root = false): unknown {
    if (Array.isArray(node)) return node.map((n) => this.render(n));
    if (!node || typeof node !== 'object') return node;
    const schema = node as Record<string | symbol, unknown>;
    if (!root && typeof schema.$id === 'string') {
      this.define(schema.$id, node);
      return refTo(schema.$id);
    }
    const built = typeof schema[Kind] === 'string' && schema[Kind] !== 'Unsafe';
    let keys = Object.keys(schema).filter((k) => k !== '$id');
    if (built) keys = [...OWN_KEYS.filter((k) => k in schema), ...keys.filter((k) => !OWN_KEYS.includes(k))];
    const out: Record<string, unknown> = {};
    for (const key of keys) {
      if (key === 'properties') {
        const properties = schema.properties as Record<string, unknown>;
        out.properties = Object.fromEntries(Object.entries(properties).map(([p, s]) => [p, this.render(s)]));
        // TypeBox leaves `required` out when no property is
        if (built && schema[Kind] === 'Object' && !('required' in schema)) out.required = [];
      } else out[key] = this.render(schema[key]);
    }
    return out;
  }
}
