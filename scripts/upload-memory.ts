// Uploads 100 MiB through the local direct-upload route in-process (create -> PUT -> complete)
// and prints the peak RSS, to show the PUT and the read-back verification stream with flat memory.
// Usage: npx tsx scripts/upload-memory.ts   (uses DATABASE_URL, else a throwaway embedded PostgreSQL)
import { createHash, randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SIZE = 100 * 1024 * 1024;
const CHUNK = 64 * 1024;
let PNG_HEAD = Buffer.alloc(0); // a real small PNG, so magic-byte sniffing sees a PNG

/** Deterministic content: a small real PNG, then a repeating pattern; generated, never held whole. */
function* chunks(): Generator<Buffer> {
  const pattern = Buffer.alloc(CHUNK);
  for (let i = 0; i < CHUNK; i++) pattern[i] = (i * 31) & 0xff;
  for (let offset = 0; offset < SIZE; offset += CHUNK) {
    const chunk = Buffer.from(pattern.subarray(0, Math.min(CHUNK, SIZE - offset)));
    if (offset === 0) PNG_HEAD.copy(chunk);
    yield chunk;
  }
}

/** The environment and a migrated database; returns how to stop the database it started, if any. */
async function prepareDatabase(work: string): Promise<(() => Promise<void>) | undefined> {
  process.env.WGS_DATA_DIR = join(work, 'data');
  process.env.SIGNING_SECRET ??= randomBytes(32).toString('hex');
  process.env.PUBLIC_BASE_URL = 'http://127.0.0.1:3999';
  process.env.RUN_WORKER = 'false';
  let stopDb: (() => Promise<void>) | undefined;
  if (!process.env.DATABASE_URL) {
    const { startEmbeddedPostgres } = await import('../server/db/embedded-postgres');
    const db = await startEmbeddedPostgres({ dataDir: join(work, 'pg') });
    process.env.DATABASE_URL = db.url;
    stopDb = () => db.stop();
  }
  const { migrateDatabase } = await import('../server/db/migrate');
  await migrateDatabase(process.env.DATABASE_URL!);
  return stopDb;
}

/** A key of a package of its own that takes image uploads of SIZE. */
async function issueUploadKey(): Promise<string> {
  const { getPrisma } = await import('../server/db/client');
  const { CLI_ACTOR } = await import('../server/domain/actor');
  const { issueKey } = await import('../server/domain/keys/issue-key');
  const { applyPackages, parsePackagesFile } = await import('../server/domain/packages/apply-packages');
  const slug = `mem-${randomBytes(4).toString('hex')}`;
  await applyPackages(
    getPrisma(),
    CLI_ACTOR,
    parsePackagesFile({
      packages: [
        {
          slug,
          name: 'Memory check',
          quota_units: 10,
          limits: { requests_per_minute: 100, concurrency: 4, max_upload_bytes: SIZE },
          operations: { 'images.generate': { engine: 'local', units: 1, input_uploads: true } },
        },
      ],
    }),
  );
  return (await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug })).key;
}

/** The content's SHA-256, once its PNG head is made. */
async function contentSha256(): Promise<string> {
  const sharp = (await import('sharp')).default;
  PNG_HEAD = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#123456' } })
    .png()
    .toBuffer();
  const hash = createHash('sha256');
  for (const chunk of chunks()) hash.update(chunk);
  return hash.digest('hex');
}

function postRequest(key: string, path: string, body: unknown, params: Record<string, string> = {}) {
  return {
    request: new Request(`http://127.0.0.1:3999${path}`, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        Authorization: `Bearer ${key}`,
        'Content-Type': 'application/json',
        'Idempotency-Key': `mem-${randomBytes(8).toString('hex')}`,
      },
    }),
    call: { params, connection: undefined, record: {} },
  };
}

/** The highest RSS seen, sampled every 5 ms. */
function sampleRss() {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  return {
    baseline,
    peak: () => Math.max(peak, process.memoryUsage().rss),
    stop: () => clearInterval(sampler),
  };
}

/** Create, PUT the streamed content, complete: what each step answered and the RSS around the PUT. */
async function uploadThroughRoutes(key: string, sha256: string) {
  const { createUploadRoute, completeUploadRoute } = await import('../server/http/routes/uploads');
  const { uploadUrlMethods } = await import('../server/http/upload-put');
  global.gc?.();
  const rss = sampleRss();
  const created = postRequest(key, '/v1/uploads', {
    purpose: 'image_input',
    filename: 'big.png',
    mime_type: 'image/png',
    size_bytes: SIZE,
    sha256,
  });
  const createdRes = await createUploadRoute.handle(created.request, created.call);
  const upload = (await createdRes.json()) as { upload_id: string; upload_url: string };
  if (createdRes.status !== 201) throw new Error(`create: ${createdRes.status} ${JSON.stringify(upload)}`);

  const source = chunks();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = source.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value));
    },
  });
  const started = Date.now();
  const putRes = await uploadUrlMethods.PUT(
    new Request(upload.upload_url, { method: 'PUT', body, headers: { 'Content-Type': 'image/png' }, duplex: 'half' } as RequestInit),
    { params: Promise.resolve({ uploadId: upload.upload_id }) },
  );
  const putBody = await putRes.text();
  if (putRes.status !== 200) throw new Error(`put: ${putRes.status} ${putBody}`);
  const putPeak = rss.peak();

  const done = postRequest(key, `/v1/uploads/${upload.upload_id}/complete`, { sha256 }, { uploadId: upload.upload_id });
  const completeRes = await completeUploadRoute.handle(done.request, done.call);
  const completed = (await completeRes.json()) as { status: string };
  if (completeRes.status !== 200 || completed.status !== 'verified')
    throw new Error(`complete: ${completeRes.status} ${JSON.stringify(completed)}`);
  rss.stop();
  return { putBody, completed, baseline: rss.baseline, putPeak, peak: rss.peak(), seconds: (Date.now() - started) / 1000 };
}

async function main() {
  const work = mkdtempSync(join(tmpdir(), 'wgs-upload-memory-'));
  chmodSync(work, 0o755); // the embedded PostgreSQL may run as another user
  const stopDb = await prepareDatabase(work);
  const key = await issueUploadKey();
  const measured = await uploadThroughRoutes(key, await contentSha256());

  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  console.log(
    JSON.stringify(
      {
        uploaded: mib(SIZE),
        put_response: JSON.parse(measured.putBody),
        status_after_complete: measured.completed.status,
        rss_before: mib(measured.baseline),
        peak_rss_during_put: mib(measured.putPeak),
        peak_rss_overall: mib(measured.peak),
        peak_minus_before: mib(measured.peak - measured.baseline),
        max_rss_of_process: mib(process.resourceUsage().maxRSS * 1024),
        seconds: measured.seconds,
      },
      null,
      2,
    ),
  );

  const { disconnectDb } = await import('../server/db/client');
  await disconnectDb();
  await stopDb?.();
  rmSync(work, { recursive: true, force: true });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
