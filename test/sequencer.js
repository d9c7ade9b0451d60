// The order jest runs the test files in: the longest first, so that its two workers end together. Jest orders by
// the durations of an earlier run when its cache has them, and otherwise by file size, which put 37- to 125-second
// files last on a fresh clone (CI), with the other worker idle meanwhile. Here a file without a cached duration
// counts by the seconds below (measured in CI on 2 cores, 2026-11-27), or by its kind: an API test file starts the
// app and a database, a unit test file does not. Failed files still go first.
const Sequencer = require('@jest/test-sequencer').default;
const path = require('node:path');

const SECONDS = {
  'test/jobs-recovery.e2e-spec.ts': 125,
  'src/engine/quality.spec.ts': 83,
  'test/signatures.e2e-spec.ts': 75,
  'test/cli.e2e-spec.ts': 71,
  'test/engine-kill.e2e-spec.ts': 54,
  'test/job-lifecycle.e2e-spec.ts': 52,
  'src/engine/parallel.spec.ts': 52,
  'test/results.e2e-spec.ts': 45,
  'test/process.e2e-spec.ts': 42,
  'test/report.e2e-spec.ts': 40,
  'src/engine/protocol.spec.ts': 26,
  'src/engine/plots.spec.ts': 21,
  'src/engine/signature-quality.spec.ts': 17,
  'src/datasets/table-parser.spec.ts': 15,
};
const E2E_SECONDS = 20;
const UNIT_SECONDS = 2;

class LongestFirst extends Sequencer {
  sort(tests) {
    const root = path.resolve(__dirname, '..');
    const seconds = (test) => {
      const cached = this.time(test);
      if (cached != null) return cached / 1000;
      const rel = path.relative(root, test.path).split(path.sep).join('/');
      return SECONDS[rel] ?? (rel.endsWith('.e2e-spec.ts') ? E2E_SECONDS : UNIT_SECONDS);
    };
    return [...tests].sort((a, b) => Number(this.hasFailed(b)) - Number(this.hasFailed(a)) || seconds(b) - seconds(a));
  }
}

module.exports = LongestFirst;
