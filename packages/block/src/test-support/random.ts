/** mulberry32: a small seeded generator, so randomized tests reproduce. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random unsigned integer of `bits` bits. */
export function randomBig(rand: () => number, bits: number): bigint {
  let v = 0n;
  for (let k = 0; k < bits; k++) v = (v << 1n) | (rand() < 0.5 ? 1n : 0n);
  return v;
}
