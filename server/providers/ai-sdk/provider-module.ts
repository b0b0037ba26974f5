import type { LanguageModelV3 } from '@ai-sdk/provider';
import type { ImageModel, SpeechModel, TranscriptionModel } from 'ai';
import type { experimental_generateVideo } from 'ai';
import type { ImageTask, MediaResult, SpeechTask, TranscribeTask, VideoTask } from '../engine';

// What each provider type module gives the AI SDK engine: its SDK provider built once, and the
// package settings said in that provider's own terms (voice, language, output format).

export type VideoModel = Parameters<typeof experimental_generateVideo>[0]['model'];
type ProviderOptions = Record<string, Record<string, unknown>>;

/** A video path outside the SDK (the `openai` type's videos): one model's call. */
export interface VideoAdapter {
  generate(task: VideoTask, signal: AbortSignal): Promise<MediaResult>;
}

export interface ProviderBuildOptions {
  /** The packages file's base_url: the SDK's `baseURL` (undefined: the SDK's public default). */
  baseURL?: string;
  apiKey: string;
  /** The type's extra fields (azure resource_name, bedrock region). */
  extras: Readonly<Record<string, string>>;
  /** The controlled fetch (size cap, timeout); for SDKs without baseURL it also carries base_url. */
  fetch: typeof fetch;
  /** PROVIDER_TIMEOUT_MS and PROVIDER_MAX_RETRIES, for a client outside the SDK (the openai video adapter). */
  timeoutMs: number;
  maxRetries: number;
}

export interface SdkModels {
  /** Called through its doGenerate directly (LanguageModelV3, the provider package's contract). */
  languageModel?(modelId: string): LanguageModelV3;
  imageModel?(modelId: string): ImageModel;
  videoModel?(modelId: string): VideoModel;
  speechModel?(modelId: string): SpeechModel;
  transcriptionModel?(modelId: string): TranscriptionModel;
  /** Videos through an adapter instead of videoModel. */
  videoAdapter?(modelId: string): VideoAdapter;
}

export interface SpeechArgs {
  voice?: string;
  outputFormat?: string;
  language?: string;
  providerOptions?: ProviderOptions;
}

export interface ProviderModule {
  /** The SDK takes no baseURL for these hosts: base_url replaces them through the fetch. */
  apiHosts?: readonly string[];
  create(options: ProviderBuildOptions): SdkModels;
  /**
   * How code output is asked for: 'schema' (default) the code object's JSON schema, in the
   * provider's own terms (a JSON schema, native structured output, a tool call); 'json-mode'
   * plain JSON mode (`response_format: json_object`), the prompt naming the object's members.
   */
  codeOutput?: 'schema' | 'json-mode';
  /** Options of every text and code call (in the SDK's providerOptions form). */
  languageOptions?: ProviderOptions;
  speechArgs?(task: SpeechTask): SpeechArgs;
  transcriptionOptions?(task: TranscribeTask): ProviderOptions | undefined;
  imageOptions?(task: ImageTask): ProviderOptions | undefined;
}

/** The defaults most providers take: the voice, the format name and the language as given. */
export function plainSpeechArgs(task: SpeechTask): SpeechArgs {
  return { voice: task.voice, outputFormat: task.format, language: task.language };
}

/** A language tag's primary subtag (en-US -> en), as most transcription APIs want it. */
export function primaryLanguage(language: string | undefined): string | undefined {
  return language?.split('-')[0];
}
