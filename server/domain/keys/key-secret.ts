import { createHash, randomInt } from 'node:crypto';

// Key format (CONTRACT.md §6): wgs_live_ + 40 random base62 characters (~238 bits). Only
// the SHA-256 is stored: the secret has enough entropy that a slow hash adds nothing.
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const KEY_PREFIX = 'wgs_live_';
const SECRET_LENGTH = 40;
export const KEY_PATTERN = /^wgs_live_[0-9A-Za-z]{32,128}$/;

export function generateKeySecret(): string {
  let body = '';
  for (let i = 0; i < SECRET_LENGTH; i++) body += ALPHABET[randomInt(ALPHABET.length)];
  return KEY_PREFIX + body;
}

export function hashKeySecret(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** What operators see to tell keys apart: the format marker and four characters. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, KEY_PREFIX.length + 4);
}
