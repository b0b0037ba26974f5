import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

// Every setting the product reads, validated once. A wrong value stops the process with a
// message naming the variable, instead of failing later somewhere deep.
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    HOST: z.string().default('0.0.0.0'),
    DATABASE_URL: z
      .string()
      .url()
      .regex(/^postgres(?:ql)?:\/\//, 'must be a PostgreSQL URL (postgres:// or postgresql://)')
      .optional(),
    /** Dashboard sessions (next-auth): generated / http://localhost:PORT when unset. */
    NEXTAUTH_URL: z.string().url("must be the dashboard's public URL, such as https://ops.example.com").optional(),
    NEXTAUTH_SECRET: z.string().min(1, 'must not be empty (unset it to have one generated)').optional(),
    /** Where the embedded PostgreSQL, local storage and generated secrets live. */
    WGS_DATA_DIR: z.string().default('.data'),
    /** Public origin used in upload and output URLs; defaults to the origin the client used (Host, or X-Forwarded-Host/-Proto). */
    PUBLIC_BASE_URL: z.string().url().optional(),
    /** HMAC secret for signed URLs; generated into the data dir when unset (single machine). */
    SIGNING_SECRET: z.string().min(32).optional(),
    OUTPUT_URL_TTL_SECONDS: positiveInt(900),
    UPLOAD_TTL_SECONDS: positiveInt(3600),
    IDEMPOTENCY_RETENTION_HOURS: positiveInt(24),
    IDEMPOTENCY_LEASE_SECONDS: positiveInt(120),
    /** How long a unit hold may stay open before the sweeper returns it. */
    HOLD_LEASE_SECONDS: positiveInt(300),
    /** The deployment's one currency (ISO 4217) of unit prices, provider costs and margins. */
    CURRENCY: z
      .string()
      .regex(/^[A-Z]{3}$/, 'must be an ISO 4217 code such as USD')
      .default('USD'),
    /**
     * Provisional writes of the paid hot path (claim, rate point, hold) commit without waiting for
     * the WAL flush, set per connection with the startup option synchronous_commit=off. Set false
     * behind a pooler that refuses startup options (PgBouncer without ignore_startup_parameters).
     */
    ASYNC_PROVISIONAL_COMMITS: z.enum(['true', 'false'], 'must be true or false').default('true'),
    /** Redis for the requests-per-minute counts (shared by every instance); PostgreSQL when unset. */
    REDIS_URL: z.string().url('must be a URL such as redis://127.0.0.1:6379').optional(),
    /** API key lookups are cached this long; revocation takes effect on every instance within it. */
    KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(1000).default(500),
    /** How long the app waits for PostgreSQL to answer a query before the request fails closed (503). */
    DATABASE_QUERY_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    PROVIDER_TIMEOUT_MS: positiveInt(30_000),
    PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
    /** Failures in a row after which a provider is skipped on every instance; 0 turns the circuit breaker off. */
    PROVIDER_CIRCUIT_FAILURES: z.coerce.number().int().min(0).max(1000).default(5),
    /** How long a provider whose circuit opened is skipped. */
    PROVIDER_CIRCUIT_OPEN_SECONDS: z.coerce.number().int().min(1).max(3600).default(30),
    /** How often each instance re-reads the circuits from the database (one query for all providers). */
    PROVIDER_CIRCUIT_REFRESH_MS: z.coerce.number().int().min(0).max(60_000).default(1000),
    /** Encrypts provider keys set with `providers set-key` (AES-256-GCM); generated into the data dir when unset. */
    PROVIDER_KEYS_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. openssl rand -base64 32)').optional(),
    STORAGE_DRIVER: z.enum(['local', 'vercel-blob', 's3']).optional(),
    BLOB_READ_WRITE_TOKEN: z
      .string()
      .regex(/^vercel_blob_rw_[A-Za-z0-9]+_[A-Za-z0-9]+$/, 'must be a Vercel Blob read-write token (vercel_blob_rw_<store>_<secret>)')
      .optional(),
    /** S3-compatible storage (STORAGE_DRIVER=s3): bucket, region, optional endpoint for non-AWS servers. */
    S3_BUCKET: z.string().min(3, 'must name the bucket objects are stored in').optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    S3_ENDPOINT: z.string().url('must be a URL such as http://127.0.0.1:9000').optional(),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    S3_FORCE_PATH_STYLE: z.enum(['true', 'false'], 'must be true or false').default('false'),
    RUN_WORKER: z.enum(['true', 'false']).default('true'),
    /** Behind a proxy that appends the client's address to X-Forwarded-For (sign-in rate limits). */
    TRUST_PROXY: z.enum(['true', 'false'], 'must be true or false').default('false'),
    /** Video jobs (pg-boss queue). Units of a job stay held this long at most; must outlast every retry. */
    JOB_HOLD_LEASE_SECONDS: positiveInt(7200),
    /** A worker that stops heartbeating this long (it died) loses the job to another worker. pg-boss needs >= 10. */
    JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10, 'JOB_HEARTBEAT_SECONDS must be at least 10 (pg-boss minimum)').default(30),
    /** Longest one attempt of a job may run before it is retried. */
    JOB_EXPIRE_SECONDS: positiveInt(1800),
    /** Attempts after the first before a job is marked failed. */
    JOB_RETRY_LIMIT: z.coerce
      .number()
      .int()
      .min(0, 'JOB_RETRY_LIMIT must be 0 or more')
      .max(20, 'JOB_RETRY_LIMIT must be at most 20')
      .default(3),
    JOB_RETRY_DELAY_SECONDS: z.coerce.number().int().min(0, 'JOB_RETRY_DELAY_SECONDS must be 0 or more').default(5),
    /** How often the queue's supervisor looks for expired and heartbeat-less jobs. */
    JOB_SUPERVISE_INTERVAL_SECONDS: positiveInt(10),
    /** How often an idle worker polls the queue (pg-boss needs >= 0.5). */
    JOB_POLL_INTERVAL_SECONDS: z.coerce.number().min(0.5, 'JOB_POLL_INTERVAL_SECONDS must be at least 0.5').default(1),
    /** Jobs one worker process runs at once. */
    WORKER_CONCURRENCY: z.coerce
      .number()
      .int()
      .min(1, 'WORKER_CONCURRENCY must be at least 1')
      .max(64, 'WORKER_CONCURRENCY must be at most 64')
      .default(2),
    SEED_PACKAGES_FILE: z.string().default('packages.example.json'),
    /** How often each instance writes its in-memory counts of refused /v1 requests (a crash loses at most this much). */
    REFUSALS_FLUSH_MS: z.coerce.number().int().min(100, 'REFUSALS_FLUSH_MS must be at least 100').max(300_000).default(5_000),
    /** Prometheus metrics: served on this port alone, and/or on the app's port to a bearer of METRICS_TOKEN. */
    METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
    METRICS_TOKEN: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
    /** One line per /v1 request: JSON (default), pretty (a terminal) or off. */
    LOG_FORMAT: z.enum(['json', 'pretty', 'off'], 'must be json, pretty or off').default('json'),
  })
  .superRefine((env, ctx) => {
    if (env.STORAGE_DRIVER === 's3' && !env.S3_BUCKET) {
      ctx.addIssue({ code: 'custom', path: ['S3_BUCKET'], message: 'is required when STORAGE_DRIVER=s3' });
    }
    if (env.STORAGE_DRIVER === 's3' && Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
      ctx.addIssue({
        code: 'custom',
        path: ['S3_SECRET_ACCESS_KEY'],
        message: 'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are set together (or neither, for the default AWS credential chain)',
      });
    }
    if (env.STORAGE_DRIVER === 'vercel-blob' && !env.BLOB_READ_WRITE_TOKEN) {
      ctx.addIssue({ code: 'custom', path: ['BLOB_READ_WRITE_TOKEN'], message: 'is required when STORAGE_DRIVER=vercel-blob' });
    }
  });

export type Config = z.infer<typeof envSchema> & { dataDir: string };

let cached: Config | undefined;

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const dataDir = isAbsolute(parsed.data.WGS_DATA_DIR)
    ? parsed.data.WGS_DATA_DIR
    : resolve(/*turbopackIgnore: true*/ process.cwd(), parsed.data.WGS_DATA_DIR);
  return { ...parsed.data, dataDir };
}

export function getConfig(): Config {
  cached ??= readConfig();
  return cached;
}

/** Tests change the environment between cases; this forgets the cached read. */
export function resetConfigForTests(): void {
  cached = undefined;
}
