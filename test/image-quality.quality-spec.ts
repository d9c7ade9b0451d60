import * as fs from 'node:fs';
import * as path from 'node:path';
import sharp from 'sharp';
import { encodedImage, IMAGE_CLASSES, ImageClass } from '../bench/synthetic-images';
import { Rng } from '../src/engine/rng';
import { API, createProject, createTestApp, createUser, expectSuccess, pollUntil, TEST_DATA, TestApp } from './utils';

/**
 * Do the img_ features carry what tells images apart? As a new user would: labelled images uploaded through the
 * API, committed, analysed (thoroughness preliminary, to keep the test short), and the best model asked for the
 * classes of held-out images uploaded as a dataset of their own.
 * - handwritten digits 3, 5 and 8 (test/data/digits.csv: 8 x 8, turned into 32 x 32 PNGs of dark ink on white), and
 *   0, 1 and 2 with 60 of each to learn from (test/data/digits012.csv);
 * - 256 x 256 colour images whose four classes differ in texture (stripes, dots) or shape (a disk, a square),
 *   never in colour (bench/synthetic-images.ts).
 */

let t: TestApp;
let owner: Awaited<ReturnType<typeof createUser>>;
beforeAll(async () => {
  t = await createTestApp({ WORKER_CORES: '2', MAX_UPLOADS_PER_USER: '8', ANALYSIS_SEED: '26' });
  owner = await createUser(t, undefined, 2);
});
afterAll(async () => {
  await t.close();
});

interface Sample {
  id: string;
  label: string;
  image: Buffer;
}

/** One image dataset through the API: init with id,label; add every image (8 at a time); commit; its dataset id. */
async function imageDataset(projectId: string, name: string, samples: Sample[]): Promise<string> {
  const csv = 'id,label\n' + samples.map((s) => `${s.id},${s.label}`).join('\n') + '\n';
  const { taskId } = expectSuccess<{ taskId: string }>(
    await t
      .http()
      .post(`${API}/image/initUpload`)
      .set('Authorization', owner.auth)
      .field('attributes', JSON.stringify({ projectId: Number(projectId), name }))
      .attach('file', Buffer.from(csv), 'labels.csv'),
  );
  let next = 0;
  const lane = async () => {
    while (next < samples.length) {
      const s = samples[next++];
      expectSuccess(
        await t
          .http()
          .post(`${API}/image/${taskId}/add`)
          .set('Authorization', owner.auth)
          .field('sampleId', s.id)
          .attach('file', s.image, `${s.id}.png`),
      );
    }
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  expectSuccess(await t.http().get(`${API}/image/${taskId}/commit`).set('Authorization', owner.auth));
  const done = await pollUntil<{ state: string; datasetId?: string }>(
    t,
    owner.auth,
    `/image/${taskId}/status`,
    (p) => p.state === 'finished' || p.state === 'failed',
    120_000,
  );
  expect(done.state).toBe('finished');
  return done.datasetId!;
}

/** Analyses `train` for `label`, predicts `test` with the best model: the fraction of held-out samples it gets right. */
async function heldOutAccuracy(projectId: string, train: Sample[], test: Sample[], name: string): Promise<number> {
  const trainId = await imageDataset(projectId, `${name}-train`, train);
  const testId = await imageDataset(projectId, `${name}-test`, test);
  const { analysisId } = expectSuccess<{ analysisId: string }>(
    await t
      .http()
      .post(`${API}/dataset/${trainId}/analyze`)
      .set('Authorization', owner.auth)
      .send({ outcome: { classification: 'label' }, thoroughness: 'preliminary', coreCount: 2, name }),
  );
  const analysis = await pollUntil<{ state: string }>(
    t,
    owner.auth,
    `/analysis/${analysisId}/status`,
    (s) => s.state === 'finished' || s.state === 'failed',
    600_000,
  );
  expect(analysis.state).toBe('finished');
  const { predictionId } = expectSuccess<{ predictionId: string }>(
    await t.http().post(`${API}/analysis/${analysisId}/predict/${testId}`).set('Authorization', owner.auth).send({ modelKey: 'best' }),
  );
  const prediction = await pollUntil<{ state: string }>(
    t,
    owner.auth,
    `/prediction/${predictionId}/status`,
    (s) => s.state === 'finished' || s.state === 'failed',
    120_000,
  );
  expect(prediction.state).toBe('finished');
  const { predictions } = expectSuccess<{ predictions: { sampleId: string; prediction: string }[] }>(
    await t.http().get(`${API}/prediction/${predictionId}/result`).set('Authorization', owner.auth),
  );
  expect(predictions).toHaveLength(test.length);
  const truth = new Map(test.map((s) => [s.id, s.label]));
  return predictions.filter((p) => truth.get(p.sampleId) === p.prediction).length / test.length;
}

/** test/data/`file` (digits.csv) as 32 x 32 gray PNGs: the 8 x 8 ink levels (0..16) enlarged with a bicubic filter. */
async function digits(file = 'digits.csv'): Promise<Sample[]> {
  const lines = fs.readFileSync(path.join(TEST_DATA, file), 'utf8').trim().split('\n').slice(1);
  return Promise.all(
    lines.map(async (line, i) => {
      const v = line.split(',').map(Number);
      const pixels = Buffer.from(v.slice(0, 64).map((ink) => Math.round(255 - (ink * 255) / 16)));
      const image = await sharp(pixels, { raw: { width: 8, height: 8, channels: 1 } })
        .resize(32, 32, { kernel: 'cubic' })
        .png()
        .toBuffer();
      return { id: `d${i + 1}`, label: `digit${v[64]}`, image };
    }),
  );
}

describe('image features carry shape and texture', () => {
  it('handwritten digits 3, 5, 8 at 32 x 32: held-out accuracy of at least 0.97', async () => {
    const projectId = await createProject(t, owner.auth, 'digits');
    const all = await digits();
    // every third digit held out (180 of 539)
    const accuracy = await heldOutAccuracy(
      projectId,
      all.filter((_, i) => i % 3 !== 2),
      all.filter((_, i) => i % 3 === 2),
      'digits',
    );
    console.log(`digits 3, 5, 8: held-out accuracy ${accuracy.toFixed(3)} (360 training, 179 held out)`);
    expect(accuracy).toBeGreaterThanOrEqual(0.97);
  }, 900_000);

  it('handwritten digits 0, 1, 2 at 32 x 32, 60 of each to learn from: held-out accuracy of at least 0.97', async () => {
    const projectId = await createProject(t, owner.auth, 'digits 0 1 2');
    // test/data/digits012.csv: 80 of each digit, in order; the last 20 of each held out
    const all = await digits('digits012.csv');
    const accuracy = await heldOutAccuracy(
      projectId,
      all.filter((_, i) => i % 80 < 60),
      all.filter((_, i) => i % 80 >= 60),
      'digits012',
    );
    console.log(`digits 0, 1, 2: held-out accuracy ${accuracy.toFixed(3)} (180 training, 60 held out)`);
    expect(accuracy).toBeGreaterThanOrEqual(0.97);
  }, 900_000);

  it('colour images of 256 x 256 whose classes differ in texture or shape only: far above chance (0.25), at least 0.75', async () => {
    const projectId = await createProject(t, owner.auth, 'textures');
    const rng = new Rng(2026);
    const make = async (count: number, prefix: string) => {
      const samples: Sample[] = [];
      for (let i = 0; i < count; i++) {
        const label: ImageClass = IMAGE_CLASSES[i % IMAGE_CLASSES.length];
        samples.push({
          id: `${prefix}${i + 1}`,
          label,
          image: await encodedImage(label, 256, rng, Math.floor(i / IMAGE_CLASSES.length) % 2 ? 'jpeg' : 'png'),
        });
      }
      return samples;
    };
    const accuracy = await heldOutAccuracy(projectId, await make(160, 'tr'), await make(80, 'te'), 'textures');
    console.log(`stripes, dots, disk, square: held-out accuracy ${accuracy.toFixed(3)} (160 training, 80 held out)`);
    expect(accuracy).toBeGreaterThanOrEqual(0.75);
  }, 900_000);
});
