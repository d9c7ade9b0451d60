import Ajv from 'ajv';
import { loadShared, parameters } from '../../bench/engine-datasets';
import { runAnalysis } from './protocol';
import { orderedPlotNames, PLOT_KINDS, PLOT_NAMES, plotKindsFor } from './plots';

describe('the plot registry', () => {
  it('names every kind once, with a schema name of its own (a component of the document: test/openapi.e2e-spec.ts)', () => {
    expect(new Set(PLOT_NAMES).size).toBe(PLOT_KINDS.length);
    expect(new Set(PLOT_KINDS.map((k) => k.schemaName)).size).toBe(PLOT_KINDS.length);
    for (const k of PLOT_KINDS) expect(k.schema.type).toEqual(expect.any(String));
  });

  it('lists stored plots in the registry order, names it does not know last', () => {
    const stored = { Unknown: [], 'Feature Stability': [], 'Feature Importance': [], 'Progressive Feature Importance': [] };
    expect(orderedPlotNames(stored)).toEqual(['Feature Importance', 'Progressive Feature Importance', 'Feature Stability', 'Unknown']);
  });

  it('gives each task its plots', () => {
    const names = (task: 'classification' | 'regression' | 'survival', classCount = 0): string[] =>
      plotKindsFor({ task, classCount }).map((k) => k.name);
    const feature = [
      'Feature Importance',
      'Progressive Feature Importance',
      'Feature Stability',
      'Feature Contributions',
      'Partial Dependence',
    ];
    const classes = ['ROC Curve', 'Calibration', 'Confusion Matrix', 'Probabilities'];
    expect(names('classification', 2)).toEqual([...feature, 'ROC Curve', 'Precision-Recall Curve', 'Threshold Table', ...classes.slice(1)]);
    expect(names('classification', 3)).toEqual([...feature, ...classes]);
    expect(names('regression')).toEqual([...feature, 'Predicted vs Actual']);
    expect(names('survival')).toEqual([...feature, 'Kaplan-Meier by Risk Group', 'Time-dependent AUC', 'Brier Score']);
  });
});

describe('the plots of an analysis', () => {
  const ajv = new Ajv({ strict: false, allErrors: true });
  it.each([
    ['iris', { classification: 'species' }],
    ['diabetes', { regression: 'progression' }],
    ['lung', { survival: { event: 'status', timeToEvent: 'time' } }],
  ] as const)('%s: every plot of every model key, each as its schema says', async (name, outcome) => {
    const result = await runAnalysis(loadShared(name), parameters(outcome, 'preliminary'), { seed: 5, threads: 0 });
    const task = Object.keys(outcome)[0] as 'classification' | 'regression' | 'survival';
    for (const key of Object.keys(result.models)) {
      const plots = result.plots[key];
      expect(Object.keys(plots)).toEqual(plotKindsFor({ task, classCount: task === 'classification' ? 3 : 0 }).map((k) => k.name));
      for (const kind of PLOT_KINDS) {
        const value = (plots as Record<string, unknown>)[kind.name];
        if (value === undefined) continue;
        const validate = ajv.compile(kind.schema);
        expect([kind.name, validate(JSON.parse(JSON.stringify(value))), ajv.errorsText(validate.errors)]).toEqual([
          kind.name,
          true,
          'No errors',
        ]);
      }
    }
  });
});
