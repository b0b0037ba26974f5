// The most a provider's reply may hold: JSON (text, code, base64 images) 16 MiB, media 100 MiB. A
// larger reply, read whole, would exhaust the server's heap; it is cut off as a provider failure.

const JSON_REPLY_LIMIT = 16 * 1024 * 1024;
const MEDIA_REPLY_LIMIT = 104_857_600;

/** The global fetch (undici's pooled keep-alive connections), with each reply's size capped. */
export async function cappedFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const limit = (response.headers.get('content-type') ?? '').includes('json') ? JSON_REPLY_LIMIT : MEDIA_REPLY_LIMIT;
  const tooLarge = () => new Error(`the provider's reply is larger than ${limit} bytes`);
  const declared = response.headers.get('content-length');
  if (Number(declared ?? 0) > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  // A declared length within the cap bounds the body already (fetch never reads past it): no
  // stream wrapper per call on the common path; only a reply of unknown length is counted.
  if (!response.body || declared !== null) return response;
  let received = 0;
  const body = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        received += chunk.byteLength;
        if (received > limit) controller.error(tooLarge());
        else controller.enqueue(chunk);
      },
    }),
  );
  return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
}
