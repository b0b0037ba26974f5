// The in-process probes' paid call: POST /v1/text/generate handed straight to its route handler
// (no Next.js, no HTTP), each with an Idempotency-Key of its own. The route is imported on first
// use, once the probe's database is named in DATABASE_URL (probe-database.ts).

const PROMPT_BODY = JSON.stringify({ input: 'Summarise the benefits of idempotent APIs in two sentences.' });

/** Requests and calls for `key`; their Idempotency-Keys are `<prefix>-1`, `<prefix>-2`, ... */
export async function textGenerateCalls(prefix: string) {
  const { textGenerateRoute } = await import('../../server/http/routes/text-and-code');
  let n = 0;
  const request = (key: string, body = PROMPT_BODY) =>
    new Request('http://127.0.0.1:1/v1/text/generate', {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `${prefix}-${++n}` },
      body,
    });
  /** Calls the handler and reads the answer; throws unless it has `status`. */
  const call = async (key: string, body?: string, status = 200) => {
    const response = await textGenerateRoute.handle(request(key, body), { params: {}, connection: undefined, record: {} });
    const text = await response.text();
    if (response.status !== status) throw new Error(`${response.status} ${text}`);
  };
  return { request, call };
}
