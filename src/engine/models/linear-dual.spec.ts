import { Rng } from '../rng';
import type { Design } from './common';
import { type DualArrays, type DualPasses, dualPasses, JsDualPasses, linearDualCD, linearSvrDualCD } from './linear-dual';
import { LinearDualKernels } from './simd-kernels';

function design(n: number, d: number, seed: number): Design {
  const rng = new Rng(seed);
  return { rows: n, cols: d, data: Float64Array.from({ length: n * d }, () => rng.normal()) };
}

/** Both passes' arrays set to the same random state: dual variables at 0, at either bound or between. */
function randomState(X: Design, C: number, svr: boolean, seed: number, passes: DualPasses[]): DualArrays[] {
  const rng = new Rng(seed, 1);
  const { rows: n, cols: d } = X;
  const w = Float64Array.from({ length: d + 1 }, () => rng.normal() * 0.3);
  const alpha = Float64Array.from({ length: n }, () => {
    const u = rng.int(svr ? 4 : 3);
    if (u === 0) return 0;
    if (u === 1) return C;
    if (u === 2) return svr ? (rng.next() * 2 - 1) * C : rng.next() * C;
    return -C;
  });
  const QD = Float64Array.from({ length: n }, (_, i) => 1 + X.data.subarray(i * d, (i + 1) * d).reduce((s, v) => s + v * v, 0));
  const y = Float64Array.from({ length: n }, () => (svr ? rng.normal() : rng.next() < 0.5 ? -1 : 1));
  const index = rng.shuffle(Int32Array.from({ length: n }, (_, i) => i));
  return passes.map((p) => {
    const a = p.start();
    a.w.set(w);
    a.alpha.set(alpha);
    a.QD.set(QD);
    a.y.set(y);
    a.index.set(index);
    return a;
  });
}

const snapshot = (a: DualArrays) => ({ w: Array.from(a.w), alpha: Array.from(a.alpha), index: Array.from(a.index) });

describe('linear dual coordinate descent: passes in WebAssembly', () => {
  // d from 1 to 9 covers every remainder of the four-term dot product and of the two-term step; 61: digits
  const shapes: [number, number][] = [
    [1, 1],
    [7, 1],
    [40, 2],
    [41, 3],
    [33, 4],
    [50, 5],
    [29, 6],
    [64, 7],
    [17, 8],
    [30, 9],
    [120, 61],
  ];

  it.each(shapes)('n %i, d %i: one pass of the SVM and of the SVR from a random state as in JavaScript, to the bit', (n, d) => {
    const X = design(n, d, 100 * n + d);
    const C = 0.7;
    const out = [new Float64Array(2), new Float64Array(2)];
    const kernels = LinearDualKernels.create(X.data, n, d);
    expect(kernels).toBeInstanceOf(LinearDualKernels);
    const passes: DualPasses[] = [kernels as LinearDualKernels, new JsDualPasses(X)];
    let moved = 0;
    let left = 0;
    for (const [pgMaxOld, pgMinOld] of [
      [Infinity, -Infinity],
      [0.2, -0.3],
    ]) {
      const svc = randomState(X, C, false, n + d, passes);
      const before = snapshot(svc[1]);
      const active = passes.map((p, k) => p.svc(n - (n >> 3), C, pgMaxOld, pgMinOld, out[k]));
      expect(active[0]).toBe(active[1]);
      expect(Array.from(out[0])).toEqual(Array.from(out[1]));
      expect(snapshot(svc[0])).toEqual(snapshot(svc[1]));
      if (snapshot(svc[1]).w.some((v, j) => v !== before.w[j])) moved++;
      left += n - (n >> 3) - active[1];
    }
    for (const [epsilon, gmaxOld] of [
      [0.1, Infinity],
      [0, 0.5],
      [0.3, 0.05],
    ]) {
      const svr = randomState(X, C, true, n * d, passes);
      const before = snapshot(svr[1]);
      const active = passes.map((p, k) => p.svr(n, C, epsilon, gmaxOld, out[k]));
      expect(active[0]).toBe(active[1]);
      expect(Array.from(out[0])).toEqual(Array.from(out[1]));
      expect(snapshot(svr[0])).toEqual(snapshot(svr[1]));
      if (snapshot(svr[1]).w.some((v, j) => v !== before.w[j])) moved++;
      left += n - active[1];
    }
    // the passes did something: the weights moved, and (past a few samples) samples left the active set
    expect(moved).toBeGreaterThan(2);
    if (n > 20) expect(left).toBeGreaterThan(0);
  });

  it('whole fits (heads sharing one workspace, interleaved with another design) equal the JavaScript ones, to the bit', () => {
    const X = design(300, 13, 5);
    const other = design(90, 22, 6);
    const labels = (X0: Design, j: number) =>
      Int8Array.from({ length: X0.rows }, (_, i) => (X0.data[i * X0.cols + j] + X0.data[i * X0.cols] > 0 ? 1 : -1));
    const targets = Float64Array.from({ length: 300 }, (_, i) => X.data[i * 13] - 0.5 * X.data[i * 13 + 1] + 0.1 * X.data[i * 13 + 2]);
    const wasm = dualPasses(X);
    const wasmOther = dualPasses(other);
    expect(wasm).toBeInstanceOf(LinearDualKernels);
    const js = new JsDualPasses(X);
    const jsOther = new JsDualPasses(other);
    for (const C of [0.05, 1, 50]) {
      const fit = (passes: DualPasses, passesOther: DualPasses) => {
        const rng = new Rng(7, C);
        return [
          linearDualCD(X, labels(X, 1), C, rng, 1e-3, passes),
          linearDualCD(other, labels(other, 2), C, rng, 1e-3, passesOther),
          linearDualCD(X, labels(X, 3), C, rng, 1e-3, passes),
          linearSvrDualCD(X, targets, C, 0.1, rng, 1e-3, passes),
          linearSvrDualCD(X, targets, C, 0, rng, 1e-3, passes),
        ].map((e) => ({ w: Array.from(e.w ?? []), rho: e.rho }));
      };
      const a = fit(wasm, wasmOther);
      expect(a).toEqual(fit(js, jsOther));
      expect(a.every((e) => e.w.some((v) => v !== 0))).toBe(true);
    }
  });
});
