import { dotAt } from '../linalg';

/**
 * Bounds on the gradients of the columns outside the strong set, so that the KKT check (and the strong rule that
 * reads its gradients) computes only those that could matter: on wide data it is most of a path's work, a dot
 * product of every column with the residual at every lambda.
 *
 * At a snapshot every gradient is computed exactly: g0_j = |z_j . r0| (per block). Later, for the residual r,
 * |z_j . r| <= g0_j + ||z_j|| ||r - r0|| (Cauchy-Schwarz). A column whose bound is at most `cut` (the next lambda's
 * strong-rule cut, below the current lambda) can neither violate the KKT conditions nor join the strong set at the
 * next lambda: its bound stands in for its gradient, and every decision is the one the exact gradient gives. When
 * more than a quarter of the columns need their exact gradient, the next check takes a new snapshot.
 */
export class GradientBounds {
  /** the residual of each block at the snapshot (K x n), and the gradients then (K x p); null: take one */
  private residual: Float64Array | null = null;
  private readonly atSnapshot: Float64Array;
  private norms: Float64Array | null = null;
  private exact = 0;
  private considered = 0;
  private taking = true;

  constructor(
    private readonly Z: Float64Array,
    private readonly n: number,
    private readonly p: number,
    private readonly K: number,
  ) {
    this.atSnapshot = new Float64Array(K * p);
  }

  /**
   * Starts block k of a check (blocks in order from 0) at residual r: the distance of r from the snapshot's, or -1
   * when this check takes the snapshot (the first, one after `end` asked for it, or one not `bounded`: every
   * gradient computed).
   */
  begin(k: number, r: Float64Array, bounded: boolean): number {
    const { n } = this;
    if (k === 0) {
      this.exact = 0;
      this.considered = 0;
      this.taking = !bounded || this.residual === null;
    }
    if (this.taking) {
      this.residual ??= new Float64Array(this.K * n);
      this.residual.set(r.subarray(0, n), k * n);
      return -1;
    }
    const residual = this.residual as Float64Array;
    let s = 0;
    for (let i = 0; i < n; i++) {
      const d = r[i] - residual[k * n + i];
      s += d * d;
    }
    return Math.sqrt(s);
  }

  /**
   * |gradient| of column j in block k, or (when `distance` >= 0, from `begin`) a bound on it when that bound is at
   * most `cut`.
   */
  gradient(k: number, j: number, r: Float64Array, distance: number, cut: number): number {
    const { n, p } = this;
    this.considered++;
    if (distance >= 0) {
      const norms = (this.norms ??= this.columnNorms());
      // a margin for the rounding of the sums involved
      const bound = (this.atSnapshot[k * p + j] + norms[j] * distance) * (1 + 1e-9);
      if (bound <= cut) return bound;
      this.exact++;
      return Math.abs(dotAt(this.Z, j * n, r, 0, n));
    }
    const g = Math.abs(dotAt(this.Z, j * n, r, 0, n));
    this.atSnapshot[k * p + j] = g;
    return g;
  }

  /** Ends a check: a new snapshot at the next one when the bounds decided too little. */
  end(): void {
    if (this.exact * 4 > this.considered) this.residual = null;
  }

  private columnNorms(): Float64Array {
    const { Z, n, p } = this;
    return Float64Array.from({ length: p }, (_, j) => Math.sqrt(dotAt(Z, j * n, Z, j * n, n)));
  }
}
