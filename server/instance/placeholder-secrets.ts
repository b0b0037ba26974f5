import { environmentCopy } from '../config/environment';

// Production refuses placeholders: a secret copied from an example file (.env.example,
// deploy/kubernetes/secret.example.yaml), one still marked CHANGE-ME, or one of low entropy
// would sign URLs, sessions and stored provider keys with a value anyone can guess. The
// production command and worker check every variable they were given (requireProductionSettings)
// and name each bad one in one line, never its value.

/** The secrets of the example files, with and without their CHANGE-ME marker (tests/unit/deploy-files.test.ts keeps this in step). */
export const EXAMPLE_SECRET_VALUES: ReadonlySet<string> = new Set(
  [
    'CHANGE-ME',
    'CHANGE-ME-postgres-password',
    'CHANGE-ME-redis-password',
    'CHANGE-ME-minio-password',
    'CHANGE-ME-minio-app-password',
    'CHANGE-ME-at-least-32-characters-long-secret',
    'CHANGE-ME-another-random-secret',
    'CHANGE-ME-a-third-secret-32-characters-or-more',
  ].flatMap((value) => [value, value.replace(/^CHANGE-ME-?/, '')].filter(Boolean)),
);

/** The service's own secrets: besides placeholders, these must not be guessable. */
export const GENERATED_SECRETS = [
  'SIGNING_SECRET',
  'NEXTAUTH_SECRET',
  'PROVIDER_KEYS_SECRET',
  'METRICS_TOKEN',
  'S3_SECRET_ACCESS_KEY',
  'GITHUB_SECRET',
  'GOOGLE_CLIENT_SECRET',
] as const;

/** Settings that are URLs whose password is a secret. */
const URL_SECRETS = ['DATABASE_URL', 'REDIS_URL'] as const;

// A random 16-character token falls under 44 bits by its character frequencies about once in two
// million draws; values typed by hand (`secret`, one letter repeated) fall far lower.
const MIN_BITS = 40;

/** Bits by the frequencies of the characters (Shannon): what a value this short and this uniform can hold at most. */
function shannonBits(chars: string[]): number {
  const counts = new Map<string, number>();
  for (const char of chars) counts.set(char, (counts.get(char) ?? 0) + 1);
  let bits = 0;
  for (const count of counts.values()) bits -= count * Math.log2(count / chars.length);
  return bits;
}

/**
 * How many different pairs `count` neighbouring pairs drawn at random from `alphabet` characters
 * hold on average: a random hex string repeats some pairs by chance, a word said again far more.
 */
function distinctPairsExpected(alphabet: number, count: number): number {
  const kinds = alphabet * alphabet;
  return kinds * (1 - (1 - 1 / kinds) ** count);
}

/**
 * Why a secret's value is easy to guess, or undefined: under 40 bits by its character
 * frequencies (short, or few distinct characters), a quarter fewer different character pairs
 * than a random value of its characters would hold (a word or pattern said again), or most of it
 * a run (abcdef, 123456). A rough screen for values typed by hand: generated secrets pass.
 */
export function lowEntropyReason(value: string): string | undefined {
  const chars = [...value];
  const bits = shannonBits(chars);
  if (bits < MIN_BITS) return `low entropy (about ${Math.floor(bits)} bits)`;
  const pairs = chars.slice(1).map((char, i) => `${chars[i]}${char}`);
  if (new Set(pairs).size < 0.75 * distinctPairsExpected(new Set(chars).size, pairs.length)) return 'low entropy (it repeats itself)';
  const steps = chars.slice(1).filter((char, i) => Math.abs(char.codePointAt(0)! - chars[i]!.codePointAt(0)!) <= 1).length;
  if (steps > 0.5 * pairs.length) return 'low entropy (a run of neighbouring characters)';
  return undefined;
}

function placeholderReason(value: string): string | undefined {
  if (/^change-?me/i.test(value)) return 'still the CHANGE-ME placeholder';
  if (EXAMPLE_SECRET_VALUES.has(value)) return "an example file's value";
  return undefined;
}

function urlPassword(value: string): string | undefined {
  try {
    return decodeURIComponent(new URL(value).password) || undefined;
  } catch {
    return undefined;
  }
}

/** Each variable whose value is a placeholder or a guessable secret, with why ("NAME: reason"). */
export function placeholderSecrets(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems = new Map<string, string>();
  for (const [name, value] of Object.entries(env)) {
    const reason = value ? placeholderReason(value) : undefined;
    if (reason) problems.set(name, reason);
  }
  for (const name of URL_SECRETS) {
    const password = env[name] ? urlPassword(env[name]) : undefined;
    const reason = password ? placeholderReason(password) : undefined;
    if (reason && !problems.has(name)) problems.set(name, `its password is ${reason}`);
  }
  for (const name of GENERATED_SECRETS) {
    const value = env[name];
    const reason = value && !problems.has(name) ? lowEntropyReason(value) : undefined;
    if (reason) problems.set(name, reason);
  }
  return [...problems].map(([name, reason]) => `${name} (${reason})`);
}

/** Throws one line naming every variable placeholderSecrets finds. */
export function refusePlaceholderSecrets(env: NodeJS.ProcessEnv = environmentCopy()): void {
  const problems = placeholderSecrets(env);
  if (problems.length === 0) return;
  throw new Error(
    `production mode refuses placeholder and guessable secrets: ${problems.join(', ')}; generate each with \`openssl rand -base64 32\` (docs/deploy.md)`,
  );
}
