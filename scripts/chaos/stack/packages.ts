import type { ChaosKeyPlan } from '../driver/plan';

// The run's own packages file: small quotas (so keys run out and are topped up), text and code on
// the fake provider for some packages and on `local` for others (media always on `local`), one
// package tight on concurrency and requests per minute, and top-ups for sale on two of them.

export const PROVIDER_KEY_ENV = 'WGS_PROVIDER_KEY_CHAOS';
export const TOP_UP_UNITS = 60;

export const UNITS = { text: 1, code: 2, image: 3, speech: 2, transcribe: 2, video: 5 } as const;

interface PackageSpec {
  slug: string;
  quota: number;
  provider: boolean;
  concurrency: number;
  rpm: number;
  sells: boolean;
}

const PACKAGES: PackageSpec[] = [
  { slug: 'chaos-provider', quota: 300, provider: true, concurrency: 3, rpm: 600, sells: false },
  { slug: 'chaos-provider-small', quota: 60, provider: true, concurrency: 3, rpm: 600, sells: true },
  { slug: 'chaos-local', quota: 250, provider: false, concurrency: 3, rpm: 600, sells: false },
  { slug: 'chaos-local-small', quota: 50, provider: false, concurrency: 2, rpm: 600, sells: true },
  { slug: 'chaos-tight', quota: 80, provider: true, concurrency: 1, rpm: 40, sells: false },
];

/** The keys the run issues, by name: each on one package. */
export const KEY_PACKAGES: Record<string, string> = {
  'provider-a': 'chaos-provider',
  'provider-b': 'chaos-provider-small',
  'local-a': 'chaos-local',
  'local-b': 'chaos-local-small',
  tight: 'chaos-tight',
};

export const packageSpec = (slug: string): PackageSpec => PACKAGES.find((spec) => spec.slug === slug)!;

export function keyPlans(): ChaosKeyPlan[] {
  return Object.entries(KEY_PACKAGES).map(([name, slug]) => ({
    name,
    provider: packageSpec(slug).provider,
    sells: packageSpec(slug).sells,
  }));
}

function operations(provider: boolean) {
  const local = { engine: 'local' };
  return {
    'text.generate': {
      ...(provider ? { engine: ['chat:chaos-a', 'chat:chaos-b'] } : local),
      units: UNITS.text,
      output_formats: ['text', 'markdown'],
    },
    'code.generate': { ...(provider ? { engine: 'chat:chaos-code' } : local), units: UNITS.code },
    'images.generate': { ...local, units: UNITS.image, output_formats: ['png'] },
    'audio.speech': { ...local, units: UNITS.speech, voices: ['alloy'], output_formats: ['wav', 'mp3'] },
    'audio.transcribe': { ...local, units: UNITS.transcribe, languages: ['en'], timestamps: ['segment', 'none'] },
    'videos.generate': { ...local, units: UNITS.video, input_uploads: false },
  };
}

/** The packages file, with the fake provider's base URL. */
export function packagesFile(chatBaseUrl: string) {
  return {
    providers: { chat: { type: 'openai', base_url: chatBaseUrl, api_key_env: PROVIDER_KEY_ENV } },
    packages: PACKAGES.map((spec) => ({
      slug: spec.slug,
      name: `Chaos ${spec.slug}`,
      quota_units: spec.quota,
      limits: { requests_per_minute: spec.rpm, concurrency: spec.concurrency, max_upload_bytes: 1_048_576 },
      ...(spec.sells ? { sale: { price: 10, currency: 'USD', top_ups: [{ units: TOP_UP_UNITS, price: 5 }] } } : {}),
      operations: operations(spec.provider),
    })),
  };
}
