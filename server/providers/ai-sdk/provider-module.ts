import type { ImageModel, LanguageModel, SpeechModel, TranscriptionModel } from 'ai';
import type { experimental_generateVideo } from 'ai';
import type { ImageTask, SpeechTask, TranscribeTask } from '../engine';

// What each provider type module gives the AI SDK engine: its SDK provider built once, and the
// package settings said in that provider's own terms (voice, language, output format).

export type VideoModel = Parameters<typeof experimental_generateVideo>[0]['model'];
type ProviderOptions = Record<string, Record<string, unknown>>;

export interface ProviderBuildOptions {
  /** The packages file's base_url: the SDK's `baseURL` (undefined: the SDK's public default). */
  baseURL?: string;
  apiKey: string;
  /** The type's extra fields (azure resource_name, bedrock region). */
  extras: Readonly<Record<string, string>>;
  /** The controlled fetch (size cap, timeout); for SDKs without baseURL it also carries base_url. */
  fetch: typeof fetch;
}

export interface SdkModels {
  languageModel?(modelId: string): LanguageModel;
  imageModel?(modelId: string): ImageModel;
  videoModel?(modelId: string): VideoModel;
  speechModel?(modelId: string): SpeechModel;
  transcriptionModel?(modelId: string): TranscriptionModel;
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
