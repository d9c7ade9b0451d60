import { checkParameters } from './analysis-parameters';

const features = [
  { name: 'y', type: 'categorical' as const },
  { name: 'v', type: 'numerical' as const },
  { name: 'e', type: 'event' as const },
  { name: 't', type: 'timeToEvent' as const },
  { name: 'id', type: 'identifier' as const },
];
const base = { outcome: { classification: 'y' }, thoroughness: 'preliminary', coreCount: 1, name: 'a' };
const codes = (body: unknown) => checkParameters(body, '7', features).violations.map((v) => v.code);

describe('checkParameters (AnalyzeDto, then the features it names)', () => {
  it('fills in the defaults of a valid body', () => {
    expect(checkParameters({ ...base, groupingFeature: 'id' }, '7', features)).toEqual({
      violations: [],
      parameters: {
        datasetId: '7',
        outcome: { classification: 'y' },
        groupingFeature: 'id',
        modelsConsidered: 'all',
        featureSelection: 'mostRelevant',
        thoroughness: 'preliminary',
        coreCount: 1,
        maxSignatureSize: 25,
        maxVisualizedSignatureCount: 5,
        name: 'a',
      },
    });
  });

  it('keeps a timeLimitSeconds from 10 to 604800 as given, and none when it is absent', () => {
    expect(checkParameters({ ...base, timeLimitSeconds: 10 }, '7', features).parameters?.timeLimitSeconds).toBe(10);
    expect(checkParameters({ ...base, timeLimitSeconds: 604800 }, '7', features).parameters?.timeLimitSeconds).toBe(604800);
    expect(checkParameters(base, '7', features).parameters).not.toHaveProperty('timeLimitSeconds');
  });

  it('accepts the largest maxSignatureSize (1000) and maxVisualizedSignatureCount (50)', () => {
    expect(codes({ ...base, maxSignatureSize: 1000, maxVisualizedSignatureCount: 50 })).toEqual([]);
  });

  it.each([
    ['not an object', [1], ['badRequest-1-0-4']],
    ['an unknown field', { ...base, extra: 1 }, ['badRequest-1-0-7']],
    [
      'a constructor key',
      JSON.parse('{"constructor":1,"outcome":{"classification":"y"},"thoroughness":"typical","coreCount":1,"name":"a"}'),
      ['badRequest-1-0-7'],
    ],
    ['outcome missing', { ...base, outcome: undefined }, ['badRequest-1-0-5']],
    ['outcome null', { ...base, outcome: null }, ['badRequest-120-0-1']],
    ['outcome with two forms', { ...base, outcome: { regression: 'v', classification: 'y' } }, ['badRequest-120-0-1']],
    ['outcome naming nothing', { ...base, outcome: { regression: '' } }, ['badRequest-120-0-1']],
    ['survival with an extra key', { ...base, outcome: { survival: { event: 'e', timeToEvent: 't', x: 1 } } }, ['badRequest-120-0-1']],
    ['an unknown outcome feature', { ...base, outcome: { classification: 'nope' } }, ['badRequest-120-0-2']],
    ['an outcome of the wrong type', { ...base, outcome: { regression: 'y' } }, ['badRequest-120-0-3']],
    [
      'survival with swapped features',
      { ...base, outcome: { survival: { event: 't', timeToEvent: 'e' } } },
      ['badRequest-120-0-3', 'badRequest-120-0-3'],
    ],
    ['thoroughness missing', { ...base, thoroughness: undefined }, ['badRequest-1-0-5']],
    ['thoroughness null', { ...base, thoroughness: null }, ['badRequest-120-0-4']],
    ['thoroughness unknown', { ...base, thoroughness: 'thorough' }, ['badRequest-120-0-4']],
    ['modelsConsidered null', { ...base, modelsConsidered: null }, ['badRequest-120-0-5']],
    ['featureSelection a number', { ...base, featureSelection: 1 }, ['badRequest-120-0-6']],
    ['coreCount a string', { ...base, coreCount: '1' }, ['badRequest-120-0-7']],
    ['coreCount a float', { ...base, coreCount: 1.5 }, ['badRequest-120-0-7']],
    ['maxSignatureSize zero', { ...base, maxSignatureSize: 0 }, ['badRequest-120-0-8']],
    ['maxVisualizedSignatureCount huge', { ...base, maxVisualizedSignatureCount: 1e300 }, ['badRequest-120-0-9']],
    ['maxVisualizedSignatureCount over 50', { ...base, maxVisualizedSignatureCount: 51 }, ['badRequest-120-0-9']],
    ['maxSignatureSize over 1000', { ...base, maxSignatureSize: 1001 }, ['badRequest-120-0-8']],
    ['name too long', { ...base, name: 'n'.repeat(121) }, ['badRequest-120-0-10']],
    ['name a number', { ...base, name: 3 }, ['badRequest-120-0-10']],
    ['groupingFeature unknown', { ...base, groupingFeature: 'nope' }, ['badRequest-120-0-11']],
    ['groupingFeature a number', { ...base, groupingFeature: 3 }, ['badRequest-120-0-11']],
    ['groupingFeature not an identifier', { ...base, groupingFeature: 'v' }, ['badRequest-120-0-12']],
    ['timeLimitSeconds under 10', { ...base, timeLimitSeconds: 9 }, ['badRequest-120-0-14']],
    ['timeLimitSeconds zero', { ...base, timeLimitSeconds: 0 }, ['badRequest-120-0-14']],
    ['timeLimitSeconds negative', { ...base, timeLimitSeconds: -60 }, ['badRequest-120-0-14']],
    ['timeLimitSeconds a float', { ...base, timeLimitSeconds: 60.5 }, ['badRequest-120-0-14']],
    ['timeLimitSeconds a string', { ...base, timeLimitSeconds: '60' }, ['badRequest-120-0-14']],
    ['timeLimitSeconds null', { ...base, timeLimitSeconds: null }, ['badRequest-120-0-14']],
    ['timeLimitSeconds over seven days', { ...base, timeLimitSeconds: 604801 }, ['badRequest-120-0-14']],
  ])('%s', (_name, body, expected) => {
    expect(codes(body)).toEqual(expected);
  });

  it('reports every violation, unknown fields first, then in the order docs/api-reference.md lists the fields', () => {
    expect(
      codes({ groupingFeature: 'v', name: '', coreCount: 0, thoroughness: 'x', outcome: { classification: 'nope' }, extra: 1 }),
    ).toEqual([
      'badRequest-1-0-7',
      'badRequest-120-0-2',
      'badRequest-120-0-4',
      'badRequest-120-0-7',
      'badRequest-120-0-10',
      'badRequest-120-0-12',
    ]);
  });
});
