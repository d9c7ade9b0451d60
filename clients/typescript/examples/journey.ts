/**
 * The whole journey on the breast-cancer dataset of the repository's test/data: login, project, upload, dataset,
 * a preliminary analysis waited for with progress, the result and both plots, a prediction and its rows.
 *
 *   cd clients/typescript && npm ci
 *   SIGNET_URL=http://localhost:8080 SIGNET_USERNAME=admin SIGNET_PASSWORD=... npm run journey
 *
 * (SIGNET_TOKEN instead of the username and password works too; SIGNET_DATA names another CSV file.)
 */
import * as path from 'node:path';
import { SignetClient } from '../src/client';

/** The package folder, whether this runs from examples/ (ts-jest) or from dist/examples/ (npm run journey). */
const PACKAGE = path.basename(path.dirname(__dirname)) === 'dist' ? path.resolve(__dirname, '..', '..') : path.resolve(__dirname, '..');
/** The repository's test data: clients/typescript -> the repository root -> test/data. */
const DEFAULT_DATA = path.resolve(PACKAGE, '..', '..', 'test', 'data', 'breast_cancer.csv');

export interface JourneyOptions {
  url: string;
  username?: string;
  password?: string;
  token?: string;
  data?: string;
  /** Where the journey writes what it does (default: the console). */
  print?: (line: string) => void;
  /** Called with the client before the journey starts (a test adds a middleware there). */
  onClient?: (client: SignetClient) => void;
}

/** Runs the journey and returns what it made, for a test to check. */
export async function journey(o: JourneyOptions) {
  const print = o.print ?? ((line: string) => console.log(line));
  const data = o.data ?? DEFAULT_DATA;
  const client = new SignetClient(o.url, { token: o.token });
  o.onClient?.(client);
  if (!o.token) await client.login(o.username ?? 'admin', o.password ?? '');
  const { version } = await client.version();
  print(`Signet ${version} at ${o.url}`);

  const projectId = await client.createProject('breast cancer journey', 'made by examples/journey.ts');
  const dataset = await client.uploadDataset(projectId, data, 'breast cancer');
  print(`dataset ${dataset.datasetId}: ${dataset.sampleCount} samples, ${dataset.featureCount} features`);

  const analysisId = await client.analyze(dataset.datasetId, {
    name: 'diagnosis, preliminary',
    outcome: { classification: 'diagnosis' },
    thoroughness: 'preliminary',
    coreCount: 1,
  });
  let shown = -1;
  await client.waitForAnalysis(analysisId, {
    progress: (s) => {
      // prints when the progress moved
      if (s.state === 'running' && (s.progress ?? 0) > shown) {
        shown = s.progress ?? 0;
        print(`  analysis ${analysisId}: ${(shown * 100).toFixed(1)}%`);
      }
    },
  });
  const result = await client.analysisResult(analysisId);
  const best = result.models.best;
  print(`best model: ${best.model}`);
  print(`  signature: ${best.signatures[0].join(', ')}`);
  for (const [metric, value] of Object.entries(best.performance)) {
    const ci = best.performanceCis?.[metric];
    print(`  estimate ${metric}: ${value.toFixed(3)}${ci ? ` (95% CI ${ci[0].toFixed(3)} to ${ci[1].toFixed(3)})` : ''}`);
  }

  const names = await client.availablePlots(analysisId, 'best');
  const plots: Record<string, number> = {};
  for (const name of names) {
    const { plot } = await client.plot(analysisId, 'best', name);
    const values = plot[name as keyof typeof plot];
    // most plots are lists; the confusion matrix is one object
    plots[name] = Array.isArray(values) ? values.length : values ? 1 : 0;
    print(`plot ${name}: ${plots[name]} ${Array.isArray(values) ? 'entries' : 'object'}`);
  }

  // the model applied to the same file (a new dataset would be scored the same way)
  const predictionId = await client.predict(analysisId, dataset.datasetId, 'best');
  await client.waitForPrediction(predictionId);
  const { predictions } = await client.predictionResult(predictionId);
  print(`predictions: ${predictions.length} rows; first: ${JSON.stringify(predictions[0])}`);
  const csv = await client.predictionResultCsv(predictionId);
  print(`predictions CSV: ${csv.trim().split('\n').length} lines`);
  return { projectId, dataset, analysisId, result, plots, predictionId, predictions, csv };
}

if (require.main === module) {
  journey({
    url: process.env.SIGNET_URL ?? 'http://localhost:8080',
    username: process.env.SIGNET_USERNAME,
    password: process.env.SIGNET_PASSWORD,
    token: process.env.SIGNET_TOKEN,
    data: process.env.SIGNET_DATA,
  }).catch((e: unknown) => {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
