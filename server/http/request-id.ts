import { randomUUID } from 'node:crypto';

/**
 * `req_` + 32 hex characters (CONTRACT.md §1 asks for 24+ url-safe ones). randomUUID draws from
 * Node's buffered entropy pool; randomBytes would make one getrandom call per request.
 */
export function newRequestId(): string {
  return `req_${randomUUID().replaceAll('-', '')}`;
}
