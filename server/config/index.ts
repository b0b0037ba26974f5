import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { innerSchema } from './config-doc';
import { settings } from './config-settings';
import { isLoopbackHost } from './loopback-host';
import { isServiceVariable } from './service-variables';

export { CONFIG_VARIABLES } from './service-variables';

// Every setting the product reads (server/config/config-settings.ts), validated once. A wrong value
// stops the process with a message naming the variable, instead of failing later somewhere deep.
const envSchema = z.object(settings).superRefine((env, ctx) => {
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
  // A request's engine call ends before its key's lease does; its hold must outlive both, or the
  // sweeper would settle the hold of a request still answering (and a delivered stream's key replay a charge not yet made).
  if (env.HOLD_LEASE_SECONDS <= env.IDEMPOTENCY_LEASE_SECONDS) {
    ctx.addIssue({
      code: 'custom',
      path: ['HOLD_LEASE_SECONDS'],
      message: `must be greater than IDEMPOTENCY_LEASE_SECONDS (${env.IDEMPOTENCY_LEASE_SECONDS}): a hold outlives its idempotency claim`,
    });
  }
  if (env.STORAGE_DRIVER === 'vercel-blob' && !env.BLOB_READ_WRITE_TOKEN) {
    ctx.addIssue({ code: 'custom', path: ['BLOB_READ_WRITE_TOKEN'], message: 'is required when STORAGE_DRIVER=vercel-blob' });
  }
  if (env.SMTP_URL && !env.MAIL_FROM) ctx.addIssue({ code: 'custom', path: ['MAIL_FROM'], message: 'is required with SMTP_URL' });
  // Half of a pair would be ignored without a word: selling or that sign-in would just be off.
  for (const [first, second, what] of PAIRS) {
    if (Boolean(env[first]) !== Boolean(env[second])) {
      ctx.addIssue({
        code: 'custom',
        path: [env[first] ? second : first],
        message: `${first} and ${second} are set together (${what}), or neither`,
      });
    }
  }
  if (env.METRICS_PORT === env.PORT) {
    ctx.addIssue({ code: 'custom', path: ['METRICS_PORT'], message: `must be another port than PORT (${env.PORT})` });
  }
  // Known before anything starts: found only when the metrics listener opened, it came after the data dir was made and migrated.
  if (env.METRICS_PORT && !env.METRICS_TOKEN && !isLoopbackHost(env.HOST)) {
    ctx.addIssue({
      code: 'custom',
      path: ['METRICS_TOKEN'],
      message: `is required with METRICS_PORT on HOST ${env.HOST} (not loopback): set one, or bind to 127.0.0.1 with HOST`,
    });
  }
  for (const name of env.PROVIDER_KEY_ENV_ALLOWED.filter(isServiceVariable)) {
    ctx.addIssue({
      code: 'custom',
      path: ['PROVIDER_KEY_ENV_ALLOWED'],
      message: `lists ${name}, a variable the service itself reads: never a provider's key (docs/providers.md)`,
    });
  }
  // Every number ends up in a PostgreSQL integer, a timer or a date: past int4 it would fail there, at the first request.
  for (const [name, value] of Object.entries(env)) {
    if (typeof value === 'number' && value > INT4_MAX)
      ctx.addIssue({ code: 'custom', path: [name], message: `must be at most ${INT4_MAX}` });
  }
});

const INT4_MAX = 2_147_483_647;

/** Settings that mean something only together. */
const PAIRS = [
  ['STRIPE_SECRET_KEY', 'STRIPE_WEBHOOK_SECRET', 'selling through Stripe Checkout'],
  ['GITHUB_ID', 'GITHUB_SECRET', 'operator sign-in with GitHub'],
  ['GOOGLE_CLIENT_ID', 'GOOGLE_CLIENT_SECRET', 'operator sign-in with Google'],
] as const;

/**
 * The environment without its blank variables: `FOO=` (as compose writes an unset `${FOO}`) means
 * unset, so the default applies; read as a number it would have been 0.
 */
function withoutBlanks(env: NodeJS.ProcessEnv): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(env).filter(([, value]) => value === undefined || value.trim() !== ''));
}

export type Config = z.infer<typeof envSchema> & { dataDir: string };

let cached: Config | undefined;

/** What a launcher settles as it starts, when the environment leaves it unset. */
export type SettledSettings = Partial<Pick<Config, 'DATABASE_URL' | 'SIGNING_SECRET' | 'NEXTAUTH_SECRET' | 'NEXTAUTH_URL'>>;

/** What the launcher settled: read by every getConfig() from then on. */
let settled: SettledSettings = {};

/**
 * Sets values the environment left unset (the embedded database's URL, secrets generated into the
 * data dir), once: every later getConfig() sees them. Settling a name again with another value is
 * a mistake, and throws.
 */
export function settleConfig(values: SettledSettings): void {
  for (const [name, value] of Object.entries(values) as [keyof SettledSettings, string | undefined][]) {
    if (settled[name] !== undefined && settled[name] !== value) throw new Error(`${name} was settled already`);
  }
  Object.assign(settled, values);
  if (cached) Object.assign(cached, values);
}

/** Number settings are written in decimal: Number() would also read 0x10, 0b1 or 1e3, which no one setting a port means. */
const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/;
const NUMBER_SETTINGS = Object.entries(settings)
  .filter(([, schema]) => innerSchema(schema)._zod?.def?.type === 'number')
  .map(([name]) => name);

/** The number settings written otherwise than in decimal. */
function notDecimal(env: Record<string, string | undefined>): string[] {
  return NUMBER_SETTINGS.filter((name) => env[name] !== undefined && !DECIMAL.test(env[name]));
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const present = withoutBlanks(env);
  const parsed = envSchema.safeParse(present);
  const undecimal = notDecimal(present);
  if (!parsed.success || undecimal.length > 0) {
    // A setting not written in decimal is named for that alone: its other problems, and a rule across
    // settings that names it (judging its misread value, 1e3 read as 1000), come of misreading it.
    const misread = (issue: { path: PropertyKey[]; message: string }) =>
      undecimal.some((name) => issue.path[0] === name || issue.message.includes(name));
    const issues = (parsed.error?.issues ?? []).filter((issue) => !misread(issue));
    const lines = [
      ...undecimal.map((name) => `  ${name}: must be a decimal number, such as 30`),
      ...issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`),
    ];
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const dataDir = isAbsolute(parsed.data.WGS_DATA_DIR)
    ? parsed.data.WGS_DATA_DIR
    : resolve(/*turbopackIgnore: true*/ process.cwd(), parsed.data.WGS_DATA_DIR);
  return { ...parsed.data, dataDir };
}

export function getConfig(): Config {
  cached ??= { ...readConfig(), ...settled };
  return cached;
}

/** Tests change the environment between cases; this forgets the cached read and what was settled. */
export function resetConfigForTests(): void {
  cached = undefined;
  settled = {};
}
