import { findDuplicateMember } from '../contract/duplicate-members';

const decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * A POST's JSON body (the dashboard's and the portal's tRPC) held to /v1's rules before tRPC reads
 * it: bytes that are no UTF-8 were read as U+FFFD and stored so, and of a member named twice
 * JSON.parse kept the last, silently. Returns the request to hand on (its body read, so given
 * again), and why it is refused when it is; a body that is no JSON is tRPC's to refuse.
 */
export async function strictJsonBody(request: Request): Promise<{ request: Request; problem?: string }> {
  if (request.method !== 'POST' || !request.body) return { request };
  const bytes = new Uint8Array(await request.arrayBuffer());
  const again = new Request(request, { body: bytes });
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    return { request: again, problem: 'The request body is not valid UTF-8.' };
  }
  try {
    JSON.parse(text);
  } catch {
    return { request: again };
  }
  const duplicate = findDuplicateMember(text);
  return { request: again, ...(duplicate === undefined ? {} : { problem: `The request body repeats the member "${duplicate}".` }) };
}
