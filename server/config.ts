import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';

// Every setting the product reads, validated once. A wrong value stops the process with a
// message naming the variable, instead of failing later somewhere deep.
const positiveInt = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const envSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().url().optional(),
  /** Where the embedded PostgreSQL, local storage and generated secrets live. */
  WGS_DATA_DIR: z.string().default('.data'),
  /** Public origin used in upload and output URLs; defaults to the request's own origin. */
  PUBLIC_BASE_URL: z.string().url().optional(),
  /** HMAC secret for signed URLs; generated into the data dir when unset (single machine). */
  SIGNING_SECRET: z.string().min(32).optional(),
  OUTPUT_URL_TTL_SECONDS: positiveInt(900),
  UPLOAD_TTL_SECONDS: positiveInt(3600),
  IDEMPOTENCY_RETENTION_HOURS: positiveInt(24),
  IDEMPOTENCY_LEASE_SECONDS: positiveInt(120),
  /** How long a unit hold may stay open before the sweeper returns it. */
  HOLD_LEASE_SECONDS: positiveInt(300),
  /** API key lookups are cached this long; revocation takes effect on every instance within it. */
  KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(1000).default(500),
  PROVIDER_TIMEOUT_MS: positiveInt(30_000),
  PROVIDER_MAX_RETRIES: z.coerce.number().int().min(0).max(5).default(2),
  STORAGE_DRIVER: z.enum(['local', 'vercel-blob', 's3']).optional(),
  BLOB_READ_WRITE_TOKEN: z.string().optional(),
  RUN_WORKER: z.enum(['true', 'false']).default('true'),
  SEED_PACKAGES_FILE: z.string().default('packages.example.json'),
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
    : resolve(process.cwd(), parsed.data.WGS_DATA_DIR);
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
