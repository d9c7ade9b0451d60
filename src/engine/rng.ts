/**
 * Seeded pseudo-random numbers. Every random choice of the engine derives its generator from
 * (seed, stream ids...) so results never depend on scheduling or thread count. Math.random is never used.
 */

function mix32(h: number, v: number): number {
  h = Math.imul(h ^ (v >>> 0), 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca77);
  h ^= h >>> 13;
  return h >>> 0;
}

/** Hashes a seed and stream identifiers (integers) into a 32-bit state. */
export function hashSeed(seed: number, ...ids: number[]): number {
  let h = mix32(0x2545f491, seed | 0);
  h = mix32(h, Math.floor(seed / 4294967296));
  for (const id of ids) h = mix32(h, (id | 0) + 0x632be5ab);
  return h;
}

/** Mulberry32 generator. */
export class Rng {
  private state: number;

  constructor(seed: number, ...ids: number[]) {
    this.state = hashSeed(seed, ...ids);
  }

  /** The generator's state: `Rng.resume(rng.position)` draws what `rng` draws next (on another thread too). */
  get position(): number {
    return this.state;
  }

  static resume(position: number): Rng {
    const rng = new Rng(0);
    rng.state = position >>> 0;
    return rng;
  }

  /** Uniform in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** In-place Fisher-Yates shuffle. */
  shuffle<T extends { length: number; [i: number]: number }>(a: T): T {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
    return a;
  }

  /** Standard normal (Box-Muller). */
  normal(): number {
    let u = this.next();
    while (u <= 1e-300) u = this.next();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * this.next());
  }
}
