// What an engine can do. `local` does all of it offline; every provider type does it through the
// AI SDK (server/providers/ai-sdk; an `openai` provider's videos through a small adapter on the
// official client). Callers pick an engine by the package's engine name.

export interface TextTask {
  input: string;
  context?: string;
  outputFormat: 'text' | 'markdown' | 'json';
  /** The package's cap on the answer's length, in the provider's tokens; unset: the provider's default. */
  maxOutputTokens?: number;
  /** Sampling temperature (0 to 2) the caller asked for (the OpenAI-compatible surface); unset: the provider's default. */
  temperature?: number;
}

export interface CodeTask {
  input: string;
  language?: string;
  requirements: string[];
  /** The package's cap on the answer's length, in the provider's tokens; unset: the provider's default. */
  maxOutputTokens?: number;
}

/** Tokens as the provider reported them (absent when it reported none, and for `local`). */
export interface TokenUsage {
  /** All input tokens, those read from the provider's cache included. */
  inputTokens?: number;
  outputTokens?: number;
  /** The part of inputTokens the provider read from its prompt cache, where it reports it. */
  cachedInputTokens?: number;
}

/** What a call consumed at its provider, as the provider (or the SDK) reported it, for the usage event. */
export interface ProviderUsage extends TokenUsage {
  /** Speech: characters synthesised. */
  characters?: number;
  /** Transcription: seconds of audio. */
  audioSeconds?: number;
  /** Images: how many, and their size (WIDTHxHEIGHT) when known. */
  images?: number;
  imageSize?: string;
  /** Video: seconds of video. */
  videoSeconds?: number;
}

/** An operator's prices of one model (CURRENCY), overriding the genai-prices table. */
export interface ModelPrices {
  input_per_mtok?: number;
  output_per_mtok?: number;
  cached_input_per_mtok?: number;
  per_character?: number;
  per_second?: number;
  per_image?: number;
}

/** How an engine's calls are priced: its provider's type and model, and the operator's prices of that model. */
export interface EnginePricing {
  providerType: string;
  model: string;
  override?: ModelPrices;
}

/** Characters per token where no provider counted them (usage estimates, the local engine's cap): the usual rule of thumb for English text. */
export const CHARS_PER_TOKEN = 4;

/** What a text or code call tells besides its output: why the model stopped, what it counted. */
export interface GenerationMeta {
  /** The SDK's unified finish reason ('stop', 'length', ...); absent for `local`. */
  finishReason?: string;
  usage?: ProviderUsage;
}

export type TextResult = { text: string } & GenerationMeta;

/** Takes each piece of a streamed answer as the engine produces it. */
export type TextDeltaSink = (text: string) => void;
export type CodeResult = { code: string; explanation: string } & GenerationMeta;

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
  usage?: ProviderUsage;
}

export interface Transcript {
  text: string;
  segments: { start: number; end: number; text: string }[];
  usage?: ProviderUsage;
}

export interface Engine {
  readonly name: string;
  /** Absent for `local`, whose calls cost nothing. */
  readonly pricing?: EnginePricing;
  generateText(task: TextTask, signal: AbortSignal): Promise<TextResult>;
  /**
   * The same answer as generateText, handed to `onDelta` piece by piece as it is produced, and
   * whole at the end. An engine retries only before its first piece: once one was handed on, a
   * failure ends the call (the caller's customer already has part of the answer). An answer without
   * a single piece fails; whether the whole text fits the output format (not only whitespace, JSON
   * that parses) is the caller's to judge, its pieces having reached the customer already.
   */
  streamText(task: TextTask, signal: AbortSignal, onDelta: TextDeltaSink): Promise<TextResult>;
  generateCode(task: CodeTask, signal: AbortSignal): Promise<CodeResult>;
  generateImage(task: ImageTask, signal: AbortSignal): Promise<MediaResult>;
  synthesizeSpeech(task: SpeechTask, signal: AbortSignal): Promise<MediaResult>;
  transcribe(task: TranscribeTask, signal: AbortSignal): Promise<Transcript>;
  generateVideo(task: VideoTask, signal: AbortSignal): Promise<MediaResult>;
}

/**
 * Why a provider call failed, so a caller can judge whether another provider may do better (see
 * server/providers/failure.ts): `rejected` is a refusal of the customer's input (400, 413, 422),
 * which the next provider would refuse too; `not_configured` a refusal of the operator's
 * configuration (401, 403, 404: wrong key or model), which the next provider may not share.
 */
export type ProviderFailureKind = 'timeout' | 'rate_limited' | 'server_error' | 'connection' | 'malformed' | 'rejected' | 'not_configured';

/** Any failure of an engine: answered as 503 provider_unavailable, no provider text passed on. */
export class ProviderUnavailableError extends Error {
  readonly kind: ProviderFailureKind;
  /**
   * The provider had begun its answer (its 2xx headers came; an answer of no use came whole), so
   * it read the prompt and may bill it: the failed call's usage is recorded, estimated.
   */
  readonly answerBegan: boolean;

  constructor(
    message: string,
    readonly retryAfterSeconds = 5,
    options?: { cause?: unknown; kind?: ProviderFailureKind; answerBegan?: boolean },
  ) {
    super(message, options);
    this.name = 'ProviderUnavailableError';
    this.kind = options?.kind ?? 'server_error';
    this.answerBegan = options?.answerBegan ?? this.kind === 'malformed';
  }
}

const ANSWER_BEGAN = Symbol('wgs.answerBegan');

/** Marks an error thrown once the provider's answer had begun (a stream that failed before its first text); returns it. */
export function afterAnswerBegan<E>(error: E): E {
  if (typeof error === 'object' && error !== null) (error as { [ANSWER_BEGAN]?: boolean })[ANSWER_BEGAN] = true;
  return error;
}

/** Whether an error, or one it wraps (its `cause`, as the SDK's errors and fetch's wrap them), was marked by afterAnswerBegan. */
export function markedAfterAnswerBegan(error: unknown): boolean {
  for (let depth = 0, at = error; depth < 5 && typeof at === 'object' && at !== null; depth++, at = (at as { cause?: unknown }).cause) {
    if ((at as { [ANSWER_BEGAN]?: boolean })[ANSWER_BEGAN] === true) return true;
  }
  return false;
}

const DEADLINE = Symbol('wgs.deadline');

/**
 * Marks an engine call's signal with the instant (epoch ms) it fires, so a retry can tell whether
 * a wait still fits the request (server/providers/retry.ts). Returns the signal.
 */
export function markDeadline(signal: AbortSignal, at: number): AbortSignal {
  (signal as AbortSignal & { [DEADLINE]?: number })[DEADLINE] = at;
  return signal;
}

/** The instant a signal marked by markDeadline fires; undefined for any other signal. */
export function deadlineOf(signal: AbortSignal | undefined): number | undefined {
  return (signal as (AbortSignal & { [DEADLINE]?: number }) | undefined)?.[DEADLINE];
}

const LATER_ENGINE = Symbol('wgs.laterEngine');

/**
 * Marks a request's signal, before each engine of its list is called (call-engine.ts, one at a
 * time), with whether a later engine remains: a retry then leaves a provider that did not answer
 * in time to that engine (server/providers/retry.ts).
 */
export function markLaterEngine(signal: AbortSignal, remains: boolean): void {
  (signal as AbortSignal & { [LATER_ENGINE]?: boolean })[LATER_ENGINE] = remains;
}

/** Whether a later engine of the request's list remains after the one being called. */
export function laterEngineRemains(signal: AbortSignal | undefined): boolean {
  return (signal as (AbortSignal & { [LATER_ENGINE]?: boolean }) | undefined)?.[LATER_ENGINE] === true;
}
