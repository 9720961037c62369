import { hash as oneShotHash } from 'node:crypto';

/** A seeded PRNG (sfc32 keyed by sha256 of the seed): the same seed gives the same traffic. */
export type Random = {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [0, n). */
  int(n: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
  bytes(n: number): Buffer;
};

export function createRandom(seed: string): Random {
  const h = oneShotHash('sha256', `tonstream-localnet:traffic:${seed}`, 'buffer');
  let a = h.readUInt32LE(0);
  let b = h.readUInt32LE(4);
  let c = h.readUInt32LE(8);
  let d = h.readUInt32LE(12);
  const u32 = () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  for (let i = 0; i < 12; i++) u32();
  const next = () => u32() / 2 ** 32;
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (list) => list[Math.floor(next() * list.length)],
    chance: (p) => next() < p,
    bytes(n) {
      const out = Buffer.alloc(n);
      for (let i = 0; i < n; i += 4) out.writeUInt32LE(u32(), i < n - 3 ? i : n - 4);
      return out;
    },
  };
}
