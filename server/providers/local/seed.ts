// Deterministic randomness derived from the request, so the same input gives the same media.
import { createHash } from 'node:crypto';

/** A small seeded generator (mulberry32) over a SHA-256 of the parts; returns [0, 1). */
export function seededRandom(...parts: string[]): () => number {
  const digest = createHash('sha256').update(parts.join('\u0000')).digest();
  let state = digest.readUInt32LE(0);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a string, for picking a value per word or per voice. */
export function hash32(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32LE(0);
}
