import { randomBytes } from 'node:crypto';

/** `req_` + 24 url-safe characters (CONTRACT.md §1). */
export function newRequestId(): string {
  return `req_${randomBytes(18).toString('base64url')}`;
}
