// What an engine can do. `local` does all of it offline; an `openai`-type provider does it
// through the official OpenAI client, every other provider type through the AI SDK
// (server/providers/ai-sdk). Callers pick an engine by the package's engine name.

export interface TextTask {
  input: string;
  context?: string;
  outputFormat: 'text' | 'markdown' | 'json';
  /** The package's cap on the answer's length, in the provider's tokens; unset: the provider's default. */
  maxOutputTokens?: number;
}

export interface CodeTask {
  input: string;
  language?: string;
  requirements: string[];
  /** The package's cap on the answer's length, in the provider's tokens; unset: the provider's default. */
  maxOutputTokens?: number;
}

export interface ImageTask {
  prompt: string;
  style?: string;
  format: 'png' | 'jpeg' | 'webp';
  inputImage?: Buffer;
  inputMimeType?: string;
}

export interface SpeechTask {
  text: string;
  voice?: string;
  language?: string;
  format: 'mp3' | 'wav';
}

export interface TranscribeTask {
  bytes: Buffer;
  mimeType: string;
  filename: string;
  language?: string;
  timestamps: 'none' | 'segment';
}

export interface VideoTask {
  prompt: string;
  inputImage?: Buffer;
  inputMimeType?: string;
}

export interface MediaResult {
  bytes: Buffer;
  mimeType: string;
}

export interface Transcript {
  text: string;
  segments: { start: number; end: number; text: string }[];
}

export interface Engine {
  readonly name: string;
  generateText(task: TextTask, signal: AbortSignal): Promise<{ text: string }>;
  generateCode(task: CodeTask, signal: AbortSignal): Promise<{ code: string; explanation: string }>;
  generateImage(task: ImageTask, signal: AbortSignal): Promise<MediaResult>;
  synthesizeSpeech(task: SpeechTask, signal: AbortSignal): Promise<MediaResult>;
  transcribe(task: TranscribeTask, signal: AbortSignal): Promise<Transcript>;
  generateVideo(task: VideoTask, signal: AbortSignal): Promise<MediaResult>;
}

/**
 * Why a provider call failed, so a caller can judge whether another provider may do better: a
 * `rejected` call (4xx other than 429) or a `not_configured` provider is not the network's fault.
 */
export type ProviderFailureKind = 'timeout' | 'rate_limited' | 'server_error' | 'connection' | 'malformed' | 'rejected' | 'not_configured';

/** Any failure of an engine: answered as 503 provider_unavailable, no provider text passed on. */
export class ProviderUnavailableError extends Error {
  readonly kind: ProviderFailureKind;

  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown; kind?: ProviderFailureKind },
  ) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
    this.kind = options?.kind ?? 'server_error';
  }
}
