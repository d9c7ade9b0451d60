/**
 * Signatures as a user meets them (issues 10 and 20): synthetic data of 200 samples x 1,000 noise features in which
 * five features cause the outcome and two copies of cause1 are added, analysed with `typical` thoroughness through
 * the API. The reference signature must hold the causes (a copy counting as cause1), few others, never a copy beside
 * its original, whichever selector wins; the copies must show up as equivalent signatures; every shown signature has
 * a model; causes are far more stable over the folds than other features. Besides the default truths (strong effects,
 * near copies), issue 20's classification case: effects 0.6 to 1, an exact copy, the class the sign of the score
 * plus normal noise of sd 0.5 (where LASSO used to win with a cause beside its copy).
 */
import {
  causeOf,
  EFFECT_SIZES,
  SYNTHETIC_OUTCOMES,
  SyntheticTask,
  syntheticTruth,
  toCsv,
  type TruthOptions,
} from '../bench/synthetic-truth';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TestApp, uploadDataset } from './utils';

jest.setTimeout(600_000);

let t: TestApp;
let auth: string;
let projectId: string;

beforeAll(async () => {
  // one seed for every analysis: the checks below are then about one fixed result, not a draw (with a random
  // seed, about one classification run in ten has cause4's importance interval touch 0 on these 200 samples)
  t = await createTestApp({ WORKER_CORES: '2', ANALYSIS_SEED: '1' });
  auth = (await createUser(t)).auth;
  projectId = await createProject(t, auth, 'signatures');
});
afterAll(async () => {
  await t.close();
});

const FEATURE_TYPES: Record<SyntheticTask, Record<string, string> | undefined> = {
  classification: undefined,
  regression: undefined,
  survival: { time: 'timeToEvent', event: 'event' },
};

interface Model {
  featureSelection: string;
  signatures: string[][];
  signatureCount: number;
  stability: Record<string, number>;
}
type Entry = { name: string | string[]; value: number; cis: [number, number] };

async function analyse(
  name: string,
  task: SyntheticTask,
  options: TruthOptions,
): Promise<{ analysisId: string; best: Model; plots: Record<string, Entry[]> }> {
  const datasetId = await uploadDataset(t, auth, projectId, toCsv(syntheticTruth(task, 200, 1000, 1, options)), {
    name: `synthetic ${name}`,
    featureTypes: FEATURE_TYPES[task],
  });
  const { analysisId } = expectSuccess(
    await t
      .http()
      .post(`${API}/dataset/${datasetId}/analyze`)
      .set('Authorization', auth)
      .send({ name: `truth ${name}`, outcome: SYNTHETIC_OUTCOMES[task], thoroughness: 'typical', coreCount: 2 }),
  );
  const status = await pollUntil<{ state: string }>(
    t,
    auth,
    `/analysis/${analysisId}/status`,
    (s) => s.state === 'finished' || s.state === 'failed',
    500_000,
  );
  expect(status.state).toBe('finished');
  const result = expectSuccess(await t.http().get(`${API}/analysis/${analysisId}/result`).set('Authorization', auth));
  const plots = expectSuccess(
    await t.http().get(`${API}/analysis/${analysisId}/getPlots`).query({ modelKey: 'best' }).set('Authorization', auth),
  );
  return { analysisId, best: result.models.best, plots: Object.assign({}, ...plots.plots) };
}

const CASES: [string, SyntheticTask, TruthOptions][] = [
  ['classification', 'classification', {}],
  ['regression', 'regression', {}],
  ['survival', 'survival', {}],
  [
    'classification, effects 0.6 to 1, an exact copy',
    'classification',
    { effects: EFFECT_SIZES.medium, exactCopy: true, normalNoise: 0.5 },
  ],
];

describe.each(CASES)('signatures on synthetic %s data (typical)', (name, task, options) => {
  let run: Awaited<ReturnType<typeof analyse>>;

  beforeAll(async () => {
    run = await analyse(name, task, options);
  });

  it('finds the causes in the reference signature, with at most 2 other features, whichever selector wins', () => {
    const reference = run.best.signatures[0];
    const causes = new Set(reference.map(causeOf).filter((c) => c !== undefined));
    expect(causes.size).toBeGreaterThanOrEqual(4);
    expect(reference.filter((f) => causeOf(f) === undefined).length).toBeLessThanOrEqual(2);
    expect(run.best.featureSelection).toMatch(
      /^(Statistically equivalent signatures \(SES\): maxK = [23], alpha = 0\.0[15], |LASSO: .*\(c = [0-9.]+\))/,
    );
  });

  it('reports how stable each feature is: causes (or their equivalents) in most folds, other features less', () => {
    const shown = new Set(run.best.signatures.flat());
    expect(Object.keys(run.best.stability).sort()).toEqual([...shown].sort());
    const stability = run.plots['Feature Stability'] as unknown as { name: string; value: number }[];
    expect(Object.fromEntries(stability.map((e) => [e.name, e.value]))).toEqual(run.best.stability);
    for (let j = 1; j < stability.length; j++) expect(stability[j].value).toBeLessThanOrEqual(stability[j - 1].value);
    const causes = [...shown].filter((f) => causeOf(f) !== undefined).map((f) => run.best.stability[f]);
    const others = [...shown].filter((f) => causeOf(f) === undefined).map((f) => run.best.stability[f]);
    const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
    // the weakest cause (effect 1.0 of 1.5) enters SES's signature in about half the folds; a chance feature of
    // these 200 samples (survival) in two thirds
    expect(mean(causes)).toBeGreaterThanOrEqual(0.75);
    if (others.length > 0) expect(mean(others)).toBeLessThan(mean(causes));
  });

  it('never puts a copy beside its original, and shows the copies as equivalent signatures', () => {
    for (const sig of run.best.signatures) expect(sig.filter((f) => causeOf(f) === 'cause1').length).toBeLessThanOrEqual(1);
    const reference = run.best.signatures[0];
    const cause1Shown = new Set(run.best.signatures.flatMap((sig) => sig.filter((f) => causeOf(f) === 'cause1')));
    expect(cause1Shown.size).toBe(3);
    // every equivalent signature differs from the reference only by swapping members of equivalence classes
    for (const sig of run.best.signatures.slice(1)) expect(sig).toHaveLength(reference.length);
    expect(run.best.signatureCount).toBeGreaterThanOrEqual(3);
    expect(run.best.signatures.length).toBe(Math.min(5, run.best.signatureCount));
  });

  it('gives each causal feature an importance interval above 0 that contains its value', () => {
    const fi = run.plots['Feature Importance'];
    const reference = run.best.signatures[0];
    expect(fi.map((e) => e.name).sort()).toEqual([...reference].sort());
    for (let j = 1; j < fi.length; j++) expect(fi[j].value).toBeLessThanOrEqual(fi[j - 1].value);
    for (const e of fi) {
      expect(e.cis[0]).toBeLessThanOrEqual(e.value);
      expect(e.value).toBeLessThanOrEqual(e.cis[1]);
      if (causeOf(e.name as string) !== undefined)
        expect({ feature: e.name, lower: e.cis[0] > 0 }).toEqual({ feature: e.name, lower: true });
    }
    const progressive = run.plots['Progressive Feature Importance'];
    const last = progressive[progressive.length - 1];
    expect(last.value).toBeCloseTo(100, 10);
    expect([...(last.name as string[])].sort()).toEqual([...reference].sort());
  });

  if (task === 'classification') {
    it('predicts with signatureIndex 1 and 2, each with its own model', async () => {
      const heldOut = await uploadDataset(t, auth, projectId, toCsv(syntheticTruth(task, 60, 1000, 2, options)), {
        name: `held-out ${name}`,
      });
      const outputs: number[][] = [];
      for (const signatureIndex of [0, 1, 2]) {
        const { predictionId } = expectSuccess(
          await t
            .http()
            .post(`${API}/analysis/${run.analysisId}/predict/${heldOut}`)
            .set('Authorization', auth)
            .send({ modelKey: 'best', signatureIndex }),
        );
        const s = await pollUntil<{ state: string }>(
          t,
          auth,
          `/prediction/${predictionId}/status`,
          (p) => p.state === 'finished' || p.state === 'failed',
          120_000,
        );
        expect(s.state).toBe('finished');
        const result = expectSuccess(await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', auth));
        expect(result.predictions).toHaveLength(60);
        outputs.push(result.predictions.map((p: { probabilities: Record<string, number> }) => p.probabilities.b));
      }
      expect(outputs[1]).not.toEqual(outputs[0]);
      expect(outputs[2]).not.toEqual(outputs[1]);
      expect(outputs[2]).not.toEqual(outputs[0]);
      const refused = await t
        .http()
        .post(`${API}/analysis/${run.analysisId}/predict/${heldOut}`)
        .set('Authorization', auth)
        .send({ modelKey: 'best', signatureIndex: run.best.signatures.length });
      expect(refused.body.code).toBe('badRequest-150-0-1');
    });
  }
});
