import type { Operation } from './values';

// The provider types a packages file may name, as data: what each can serve (read from the
// 6.x-line @ai-sdk provider packages), what its entry needs, and which package settings it
// cannot honour. The packages file is refused when applied if a package asks more of a provider
// than this table says it can do, rather than a customer finding out later.

export const PROVIDER_TYPES = [
  'openai',
  'openai-compatible',
  'anthropic',
  'google',
  'xai',
  'mistral',
  'groq',
  'deepseek',
  'azure',
  'amazon-bedrock',
  'fal',
  'replicate',
  'luma',
  'elevenlabs',
  'deepgram',
  'assemblyai',
  'gateway',
] as const;

export type ProviderType = (typeof PROVIDER_TYPES)[number];

/** What a provider type cannot honour of an operation's package settings; absent: all of them. */
export interface SettingLimits {
  /** audio.speech output formats it can produce. */
  speechFormats?: readonly ('mp3' | 'wav')[];
  /** false: the voice is fixed by the model id, a `voices` list cannot be honoured. */
  voices?: boolean;
  /** false: the provider takes no language for this operation, a `languages` list cannot be honoured. */
  languages?: boolean;
  /** false: no timed segments, so `timestamps` must be `["none"]`. */
  segments?: boolean;
  /** false: no input image/video, so `input_uploads` must stay false. */
  inputUploads?: boolean;
}

export interface ProviderTypeInfo {
  /** What the operator reads in docs and the dashboard. */
  label: string;
  operations: readonly Operation[];
  /** true: `base_url` is required (there is no public default). */
  baseUrlRequired: boolean;
  /**
   * The type's own conventional key variable (its SDK's default), which its `api_key_env` may
   * always name; null when the type has none (any server speaking a protocol).
   */
  keyEnv: string | null;
  /** The public default, shown in docs; the SDK's own default is what is used. */
  defaultBaseUrl: string;
  /** Extra fields of the provider entry, by name, with whether each is required. */
  extras: Readonly<Record<string, { required: boolean; description: string }>>;
  limits: Partial<Record<Operation, SettingLimits>>;
}

const TEXT = ['text.generate', 'code.generate'] as const;

export const PROVIDER_TYPE_INFO: Readonly<Record<ProviderType, ProviderTypeInfo>> = {
  openai: {
    label: 'OpenAI (or any server speaking its full API)',
    keyEnv: 'OPENAI_API_KEY',
    operations: [...TEXT, 'images.generate', 'videos.generate', 'audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.openai.com/v1',
    extras: {},
    limits: {},
  },
  'openai-compatible': {
    label: 'Any OpenAI-compatible server (vLLM, Ollama, LM Studio, Together, OpenRouter, ...)',
    keyEnv: null,
    operations: [...TEXT, 'images.generate'],
    baseUrlRequired: true,
    defaultBaseUrl: '(none: base_url is required)',
    extras: {},
    limits: {},
  },
  anthropic: {
    label: 'Anthropic (Claude)',
    keyEnv: 'ANTHROPIC_API_KEY',
    operations: [...TEXT],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    extras: {},
    limits: {},
  },
  google: {
    label: 'Google Generative AI (Gemini, Imagen, Veo)',
    keyEnv: 'GOOGLE_GENERATIVE_AI_API_KEY',
    operations: [...TEXT, 'images.generate', 'videos.generate', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    extras: {},
    limits: {},
  },
  xai: {
    label: 'xAI (Grok)',
    keyEnv: 'XAI_API_KEY',
    operations: [...TEXT, 'images.generate', 'videos.generate'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.x.ai/v1',
    extras: {},
    limits: {},
  },
  mistral: {
    label: 'Mistral',
    keyEnv: 'MISTRAL_API_KEY',
    operations: [...TEXT, 'audio.speech'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    extras: {},
    limits: { 'audio.speech': { languages: false } },
  },
  groq: {
    label: 'Groq',
    keyEnv: 'GROQ_API_KEY',
    operations: [...TEXT, 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    extras: {},
    limits: {},
  },
  deepseek: {
    label: 'DeepSeek',
    keyEnv: 'DEEPSEEK_API_KEY',
    operations: [...TEXT],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.deepseek.com',
    extras: {},
    limits: {},
  },
  azure: {
    label: 'Azure OpenAI',
    keyEnv: 'AZURE_API_KEY',
    operations: [...TEXT, 'images.generate', 'audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://{resource_name}.openai.azure.com/openai',
    extras: {
      resource_name: {
        required: false,
        description: 'the Azure resource (https://{resource_name}.openai.azure.com); required unless base_url is given',
      },
      api_version: { required: false, description: 'the API version query parameter (the SDK default: v1)' },
    },
    limits: { 'audio.speech': { languages: false } },
  },
  'amazon-bedrock': {
    label: 'Amazon Bedrock (Bedrock API key)',
    keyEnv: 'AWS_BEARER_TOKEN_BEDROCK',
    operations: [...TEXT, 'images.generate'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
    extras: { region: { required: true, description: 'the AWS region, e.g. us-east-1' } },
    limits: {},
  },
  fal: {
    label: 'fal',
    keyEnv: 'FAL_API_KEY',
    operations: ['images.generate', 'videos.generate', 'audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://fal.run',
    extras: {},
    limits: { 'audio.speech': { speechFormats: ['mp3'], languages: false } },
  },
  replicate: {
    label: 'Replicate',
    keyEnv: 'REPLICATE_API_TOKEN',
    operations: ['images.generate', 'videos.generate'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.replicate.com/v1',
    extras: {},
    limits: {},
  },
  luma: {
    label: 'Luma AI (images)',
    keyEnv: 'LUMA_API_KEY',
    operations: ['images.generate'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.lumalabs.ai',
    extras: {},
    limits: { 'images.generate': { inputUploads: false } },
  },
  elevenlabs: {
    label: 'ElevenLabs',
    keyEnv: 'ELEVENLABS_API_KEY',
    operations: ['audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.elevenlabs.io',
    extras: {},
    limits: {},
  },
  deepgram: {
    label: 'Deepgram',
    keyEnv: 'DEEPGRAM_API_KEY',
    operations: ['audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.deepgram.com',
    extras: {},
    // Deepgram's voice and language are part of the model id (aura-2-thalia-en).
    limits: { 'audio.speech': { voices: false, languages: false } },
  },
  assemblyai: {
    label: 'AssemblyAI',
    keyEnv: 'ASSEMBLYAI_API_KEY',
    operations: ['audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://api.assemblyai.com',
    extras: {},
    limits: {},
  },
  gateway: {
    label: 'Vercel AI Gateway (one key, many providers)',
    keyEnv: 'AI_GATEWAY_API_KEY',
    operations: [...TEXT, 'images.generate', 'videos.generate', 'audio.speech', 'audio.transcribe'],
    baseUrlRequired: false,
    defaultBaseUrl: 'https://ai-gateway.vercel.sh/v3/ai',
    extras: {},
    limits: {},
  },
};

export function isProviderType(value: string): value is ProviderType {
  return (PROVIDER_TYPES as readonly string[]).includes(value);
}

/** The operations a provider type can serve (none for a type this version does not know). */
export function operationsOf(type: string): readonly Operation[] {
  return isProviderType(type) ? PROVIDER_TYPE_INFO[type].operations : [];
}
