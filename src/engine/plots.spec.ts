import { orderedPlotNames, PLOT_KINDS, PLOT_NAMES, PLOT_SCHEMAS, plotKindsFor } from './plots';

describe('the plot registry', () => {
  it('names every kind once, with a schema of its own that `Plot` refers to by the plot name', () => {
    expect(new Set(PLOT_NAMES).size).toBe(PLOT_KINDS.length);
    expect(new Set(PLOT_KINDS.map((k) => k.schemaName)).size).toBe(PLOT_KINDS.length);
    for (const k of PLOT_KINDS) {
      expect(PLOT_SCHEMAS[k.schemaName]).toBe(k.schema);
      expect(PLOT_SCHEMAS.Plot.properties?.[k.name]).toEqual({ $ref: `#/components/schemas/${k.schemaName}` });
    }
    expect(Object.keys(PLOT_SCHEMAS.Plot.properties ?? {})).toEqual(PLOT_NAMES);
  });

  it('lists stored plots in the registry order, names it does not know last', () => {
    const stored = { Unknown: [], 'Feature Stability': [], 'Feature Importance': [], 'Progressive Feature Importance': [] };
    expect(orderedPlotNames(stored)).toEqual(['Feature Importance', 'Progressive Feature Importance', 'Feature Stability', 'Unknown']);
  });

  it('gives the feature plots to every task', () => {
    for (const model of [
      { task: 'classification' as const, classCount: 2 },
      { task: 'regression' as const, classCount: 0 },
      { task: 'survival' as const, classCount: 0 },
    ]) {
      expect(plotKindsFor(model).map((k) => k.name)).toEqual(
        expect.arrayContaining(['Feature Importance', 'Progressive Feature Importance', 'Feature Stability']),
      );
    }
  });
});
