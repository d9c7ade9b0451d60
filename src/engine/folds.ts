import type { PreparedData } from './data';
import { Rng } from './rng';

/** Cross-validation folds: per repeat, the fold of every sample. */
export interface FoldPlan {
  k: number;
  repeats: number;
  assignment: Int32Array[];
}

/** Stratum of each sample: class (classification), event status (survival), outcome quintile (regression). */
function strata(data: PreparedData): Int32Array {
  if (data.task === 'classification') return Int32Array.from(data.y);
  if (data.task === 'survival') return Int32Array.from(data.event as Float64Array);
  const order = Int32Array.from({ length: data.n }, (_, i) => i).sort((a, b) => data.y[a] - data.y[b] || a - b);
  const out = new Int32Array(data.n);
  order.forEach((s, r) => (out[s] = Math.min(4, Math.floor((5 * r) / data.n))));
  return out;
}

/**
 * The folds and repeats of the cross-validation for `unitCount` units whose smallest stratum has `smallest`: 10 folds,
 * fewer when a stratum has fewer units; 5 repeats under 100 units, 2 under 300, else 1.
 */
export function foldCounts(unitCount: number, smallest: number): { k: number; repeats: number } {
  const k = Math.max(2, Math.min(10, unitCount, Math.max(2, smallest)));
  const repeats = unitCount < 100 ? 5 : unitCount < 300 ? 2 : 1;
  return { k, repeats };
}

/**
 * Stratified, group-aware, repeated K-fold. Units are groups of the grouping feature (or single samples);
 * a unit's stratum is its members' most frequent stratum. K = 10, fewer when the smallest stratum has fewer
 * units; repeats: 5 below 100 units, 2 below 300, else 1.
 */
export function planFolds(data: PreparedData, seed: number): FoldPlan {
  const n = data.n;
  const s = strata(data);
  const unitOf = data.groups ?? Int32Array.from({ length: n }, (_, i) => i);
  let unitCount = 0;
  for (const u of unitOf) unitCount = Math.max(unitCount, u + 1);
  const members: number[][] = Array.from({ length: unitCount }, () => []);
  unitOf.forEach((u, i) => members[u].push(i));
  let strataCount = 0;
  for (const v of s) strataCount = Math.max(strataCount, v + 1);
  const unitStratum = members.map((m) => {
    const c = new Array<number>(strataCount).fill(0);
    for (const i of m) c[s[i]]++;
    let best = 0;
    for (let k = 1; k < strataCount; k++) if (c[k] > c[best]) best = k;
    return best;
  });
  const perStratum = new Array<number>(strataCount).fill(0);
  for (const st of unitStratum) perStratum[st]++;
  const smallest = Math.min(...perStratum.filter((c) => c > 0));
  const { k, repeats } = foldCounts(unitCount, smallest);
  const assignment: Int32Array[] = [];
  for (let r = 0; r < repeats; r++) {
    const rng = new Rng(seed, 0xf01d, r);
    const units = rng.shuffle(Int32Array.from({ length: unitCount }, (_, u) => u));
    const rank = new Int32Array(unitCount);
    units.forEach((u, pos) => (rank[u] = pos));
    const ordered = Array.from(units).sort(
      (a, b) => unitStratum[a] - unitStratum[b] || members[b].length - members[a].length || rank[a] - rank[b],
    );
    const total = new Array<number>(k).fill(0);
    const inStratum: number[][] = Array.from({ length: strataCount }, () => new Array<number>(k).fill(0));
    const fold = new Int32Array(n);
    for (const u of ordered) {
      const st = unitStratum[u];
      let best = 0;
      for (let f = 1; f < k; f++) {
        const a = inStratum[st][f] - inStratum[st][best] || total[f] - total[best];
        if (a < 0) best = f;
      }
      for (const i of members[u]) fold[i] = best;
      inStratum[st][best] += members[u].length;
      total[best] += members[u].length;
    }
    assignment.push(fold);
  }
  return { k, repeats, assignment };
}

/** Train and test rows of one fold. */
export function foldRows(plan: FoldPlan, repeat: number, fold: number): { train: Int32Array; test: Int32Array } {
  const a = plan.assignment[repeat];
  const train: number[] = [];
  const test: number[] = [];
  a.forEach((f, i) => (f === fold ? test : train).push(i));
  return { train: Int32Array.from(train), test: Int32Array.from(test) };
}
