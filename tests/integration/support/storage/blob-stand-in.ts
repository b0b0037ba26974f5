import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

// A local stand-in for the Vercel Blob API, answering the calls @vercel/blob 2.8 makes for
// put, head, del and client-token uploads, and authenticated reads of private blob URLs.
// It enforces what the real service enforces for this product: private access, the read-write
// token, and a client token's pathname, content types, size limit and expiry.

interface Blob {
  bytes: Buffer;
  contentType: string;
  uploadedAt: Date;
}

export interface BlobStandIn {
  apiUrl: string;
  token: string;
  blobs: Map<string, Blob>;
  requests: { method: string; path: string; auth: 'rw' | 'client' | 'none' }[];
  close(): Promise<void>;
}

const STORE_ID = 'teststore01';
const API_PREFIX = '/api/blob';

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

const fail = (res: ServerResponse, status: number, code: string, message: string) => send(res, status, { error: { code, message } });

async function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) return 'too_large';
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

interface ClientPayload {
  pathname: string;
  allowedContentTypes?: string[];
  maximumSizeInBytes?: number;
  validUntil: number;
  allowOverwrite?: boolean;
}

export async function startBlobStandIn(): Promise<BlobStandIn> {
  const token = `vercel_blob_rw_${STORE_ID}_${createHash('sha256').update(String(Math.random())).digest('hex').slice(0, 30)}`;
  const blobs = new Map<string, Blob>();
  const cdn = new Map<string, Blob>(); // what a read without ?cache=0 was last served
  const requests: BlobStandIn['requests'] = [];
  let origin = '';

  function authOf(req: IncomingMessage): { kind: 'rw' } | { kind: 'client'; payload: ClientPayload } | { kind: 'none' } {
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (bearer === token) return { kind: 'rw' };
    const prefix = `vercel_blob_client_${STORE_ID}_`;
    if (bearer?.startsWith(prefix)) {
      const [signature, payload] = Buffer.from(bearer.slice(prefix.length), 'base64').toString().split('.');
      const expected = createHmac('sha256', token)
        .update(payload ?? '')
        .digest('hex');
      if (signature && signature.length === expected.length && timingSafeEqual(Buffer.from(signature), Buffer.from(expected))) {
        return { kind: 'client', payload: JSON.parse(Buffer.from(payload!, 'base64').toString()) as ClientPayload };
      }
    }
    return { kind: 'none' };
  }

  const view = (pathname: string, blob: Blob) => ({
    url: `${origin}/store/${pathname}`,
    downloadUrl: `${origin}/store/${pathname}?download=1`,
    pathname,
    size: blob.bytes.length,
    uploadedAt: blob.uploadedAt.toISOString(),
    contentType: blob.contentType,
    contentDisposition: `inline; filename="${pathname.split('/').pop()}"`,
    cacheControl: 'private, max-age=0',
    etag: `"${createHash('md5').update(blob.bytes).digest('hex')}"`,
  });

  const pathnameOf = (urlOrPathname: string) =>
    urlOrPathname.startsWith(`${origin}/store/`) ? urlOrPathname.slice(`${origin}/store/`.length) : urlOrPathname;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', origin);
    const auth = authOf(req);
    requests.push({ method: req.method ?? '', path: url.pathname, auth: auth.kind });

    if (url.pathname.startsWith('/store/')) {
      // Private blobs are readable only with the store's read-write token.
      if (auth.kind !== 'rw') return fail(res, 403, 'forbidden', 'Access denied');
      const pathname = decodeURIComponent(url.pathname.slice('/store/'.length));
      const current = blobs.get(pathname);
      if (!current || req.method !== 'GET') return fail(res, 404, 'not_found', 'The requested blob does not exist');
      // Vercel's CDN: an overwritten private blob may be served from cache for up to 60 s;
      // ?cache=0 reads from the origin.
      const blob = url.searchParams.get('cache') === '0' ? current : (cdn.get(pathname) ?? current);
      cdn.set(pathname, blob);
      // A single `bytes=a-b` range, as Vercel's store serves one (206 with Content-Range).
      const range = /^bytes=(\d+)-(\d+)$/.exec(String(req.headers.range ?? ''));
      if (range && Number(range[1]) < blob.bytes.length) {
        const [start, end] = [Number(range[1]), Math.min(Number(range[2]), blob.bytes.length - 1)];
        res.writeHead(206, {
          'content-type': blob.contentType,
          'content-length': String(end - start + 1),
          'content-range': `bytes ${start}-${end}/${blob.bytes.length}`,
        });
        res.end(blob.bytes.subarray(start, end + 1));
        return;
      }
      res.writeHead(200, { 'content-type': blob.contentType, 'content-length': String(blob.bytes.length) });
      res.end(blob.bytes);
      return;
    }
    if (!url.pathname.startsWith(API_PREFIX)) return fail(res, 404, 'not_found', 'Unknown path');
    if (!req.headers['x-api-version']) return fail(res, 400, 'bad_request', 'Missing x-api-version');
    if (auth.kind === 'none') return fail(res, 403, 'forbidden', 'Access denied, please provide a valid token for this resource.');
    const route = url.pathname.slice(API_PREFIX.length);

    if (req.method === 'PUT' && (route === '/' || route === '') && url.searchParams.has('pathname')) {
      const pathname = url.searchParams.get('pathname')!;
      if (req.headers['x-vercel-blob-access'] !== 'private') return fail(res, 400, 'bad_request', 'This store only takes private blobs');
      const contentType = String(req.headers['x-content-type'] ?? 'application/octet-stream');
      let limit = Number.MAX_SAFE_INTEGER;
      let overwrite = req.headers['x-allow-overwrite'] === '1';
      if (auth.kind === 'client') {
        const payload = auth.payload;
        if (payload.validUntil < Date.now()) return fail(res, 400, 'bad_request', 'Token expired');
        if (payload.pathname !== pathname) return fail(res, 400, 'bad_request', 'The "pathname" does not match the token payload');
        if (payload.allowedContentTypes && !payload.allowedContentTypes.includes(contentType)) {
          return fail(res, 400, 'bad_request', `contentType ${contentType} is not allowed`);
        }
        limit = payload.maximumSizeInBytes ?? limit;
        overwrite = Boolean(payload.allowOverwrite);
      }
      if (blobs.has(pathname) && !overwrite) return fail(res, 400, 'bad_request', 'This blob already exists');
      const body = await readBody(req, limit);
      if (body === 'too_large') {
        res.setHeader('connection', 'close');
        return fail(res, 400, 'bad_request', `the file length cannot be greater than ${limit} bytes`);
      }
      const blob = { bytes: body, contentType, uploadedAt: new Date() };
      blobs.set(pathname, blob);
      return send(res, 200, view(pathname, blob));
    }
    if (auth.kind !== 'rw') return fail(res, 400, 'client_token_not_allowed', 'Not available with a client token');
    if (req.method === 'GET' && (route === '' || route === '/') && url.searchParams.has('url')) {
      const pathname = pathnameOf(url.searchParams.get('url')!);
      const blob = blobs.get(pathname);
      if (!blob) return fail(res, 404, 'not_found', 'The requested blob does not exist');
      return send(res, 200, view(pathname, blob));
    }
    if (req.method === 'POST' && route === '/delete') {
      const body = await readBody(req, 1 << 20);
      const { urls } = JSON.parse((body as Buffer).toString()) as { urls: string[] };
      for (const item of urls) blobs.delete(pathnameOf(item));
      return send(res, 200, {});
    }
    return fail(res, 400, 'bad_request', `Unsupported call ${req.method} ${route}`);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error) => fail(res, 500, 'unknown_error', String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl: `${origin}${API_PREFIX}`,
    token,
    blobs,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
