import type { ConfigurationSummary } from '../types';
import { leaderboardOrder } from './output';

function row(configuration: number, value: number, droppedEarly: boolean): ConfigurationSummary {
  return {
    configuration,
    featureSelection: 'SES',
    model: 'Ridge',
    interpretable: true,
    metric: 'Area Under the ROC Curve',
    value,
    signatureSize: 3,
    droppedEarly,
  };
}

describe('the leaderboard order', () => {
  it('puts every configuration evaluated to the end before those dropped early, each part by metric, then by index', () => {
    const rows = [
      row(0, 0.91, false),
      row(1, 0.99, true),
      row(2, 0.95, false),
      row(3, NaN, false),
      row(4, 0.97, true),
      row(5, 0.95, false),
    ];
    expect(rows.sort(leaderboardOrder).map((r) => r.configuration)).toEqual([2, 5, 0, 3, 1, 4]);
  });
});
