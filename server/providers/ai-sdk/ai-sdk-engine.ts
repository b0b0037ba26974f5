import type { JSONSchema7, LanguageModelV3, LanguageModelV3CallOptions } from '@ai-sdk/provider';
import { asSchema, experimental_generateSpeech, experimental_generateVideo, experimental_transcribe, generateImage } from 'ai';
import { z } from 'zod';
import { stoppedByCaller } from '../../lifecycle/abort-reason';
import { checkedMedia } from '../checked-media';
import { extractVideoFrame } from '../local/video';
import { withProviderCancel } from './provider-cancel';
import {
  ProviderUnavailableError,
  type CodeResult,
  type CodeTask,
  type Engine,
  type EnginePricing,
  type GenerationMeta,
  type ImageTask,
  type MediaResult,
  type SpeechTask,
  type TextDeltaSink,
  type TextResult,
  type TextTask,
  type Transcript,
  type TranscribeTask,
  type VideoTask,
  markedAfterAnswerBegan,
} from '../engine';
import { failureKindOf, retryAfterSecondsOf, statusOf } from '../failure';
import { generateOnce, malformed, parseJson, streamOnce, type LanguageCall } from './language-model-calls';
import { codePrompt, textPrompt, type Prompt } from './prompts';
import type { ProviderModule, SdkModels } from './provider-module';

// Every provider type through the Vercel AI SDK (an `openai` provider's videos through its video
// adapter). The SDK provider is built once per provider (build-engine caches it); this engine is
// one model of it. Text and code call the model's doGenerate directly under the gate's own
// bounded retry, streamed text its doStream under the same retry until the first piece
// (language-model-calls.ts); media goes through the SDK's generate functions. Every failure becomes
// ProviderUnavailableError with its kind (failure.ts); the caller answers 503 and passes no
// provider text on.

export interface AiSdkEngineConfig {
  /** The provider's name in the packages file. */
  name: string;
  module: ProviderModule;
  models: SdkModels;
  /** undefined: the provider's key is not set (503 without calling it). */
  apiKey: string | undefined;
  maxRetries: number;
  /** Reads a media URL the provider answers with (size-capped, timed like every call). */
  fetch: typeof fetch;
  /** The provider's own fetch (its API origin and credentials), for the cancel of a job its SDK started. */
  apiFetch?: typeof fetch;
  /** The provider's type and the operator's prices per model, for each call's cost. */
  type?: string;
  prices?: Record<string, EnginePricing['override']>;
}

const CODE_OUTPUT = z.object({ code: z.string(), explanation: z.string() });
let codeJsonSchema: Promise<JSONSchema7> | undefined;
const codeSchema = () => (codeJsonSchema ??= Promise.resolve(asSchema(CODE_OUTPUT).jsonSchema as JSONSchema7 | PromiseLike<JSONSchema7>));

const IMAGE_MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

/** A provider's segments, checked before anyone pays for them. */
const TRANSCRIPT_SEGMENTS = z.array(
  z.object({ start: z.number().min(0), end: z.number().min(0), text: z.string() }).refine((s) => s.end >= s.start),
);

/** The one mapping of every type's transcript: timed, trimmed, non-empty segments, or none when none were asked. */
export function transcriptOf(
  result: { text: unknown; segments: readonly { text: string; startSecond: number; endSecond: number }[] },
  timestamps: TranscribeTask['timestamps'],
): Transcript {
  if (typeof result.text !== 'string') throw malformed('the provider returned no text');
  if (timestamps === 'none') return { text: result.text, segments: [] };
  // Word-level providers (ElevenLabs) also list the spaces between words: those are dropped.
  const segments = TRANSCRIPT_SEGMENTS.safeParse(
    result.segments
      .map((segment) => ({ start: segment.startSecond, end: segment.endSecond, text: segment.text.trim() }))
      .filter((segment) => segment.text !== ''),
  );
  if (!segments.success) throw malformed('the provider returned malformed segments');
  // Speech without a single timed segment, when segments were asked: not the answer paid for.
  if (segments.data.length === 0 && result.text.trim() !== '') throw malformed('the provider returned no segments');
  return { text: result.text, segments: segments.data };
}

/** What a text task asks of the model's sampling and length. */
const limitsOf = (task: TextTask) => ({ maxOutputTokens: task.maxOutputTokens, temperature: task.temperature });

export class AiSdkEngine implements Engine {
  readonly name: string;
  readonly pricing?: EnginePricing;

  constructor(
    private readonly config: AiSdkEngineConfig,
    private readonly model: string,
  ) {
    this.name = `${config.name}:${model}`;
    if (config.type) this.pricing = { providerType: config.type, model, override: config.prices?.[model] };
  }

  // Built once per engine: an SDK model compiles its response schemas when constructed, which
  // cost more CPU than the rest of the call.
  private readonly builtModels = new Map<keyof SdkModels, unknown>();

  private model_<K extends keyof SdkModels>(kind: K): ReturnType<NonNullable<SdkModels[K]>> {
    type Model = ReturnType<NonNullable<SdkModels[K]>>;
    const built = this.builtModels.get(kind);
    if (built) return built as Model;
    const factory = this.config.models[kind];
    // The packages file is refused for such an operation; a row edited by hand lands here.
    if (!factory) throw new ProviderUnavailableError(`${this.config.name} cannot serve this operation`, 30, { kind: 'not_configured' });
    const model = (factory as (id: string) => Model).call(this.config.models, this.model);
    this.builtModels.set(kind, model);
    return model;
  }

  private async call<T>(what: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    if (!this.config.apiKey) {
      console.error(`[provider ${this.config.name}] its API key is not set`);
      throw new ProviderUnavailableError(`provider ${this.config.name} has no API key configured`, 30, { kind: 'not_configured' });
    }
    try {
      return await work();
    } catch (error) {
      if (stoppedByCaller(signal)) {
        // A job cancelled, a client gone, the instance stopping: not the provider's failure.
        console.error(`[provider ${this.name}] ${what} stopped: its caller cancelled it`);
        throw new ProviderUnavailableError(`${what} cancelled`, 5, { cause: error, kind: 'timeout' });
      }
      // Judged here (an answer of no use: text that is no JSON, media of another format): said as
      // the provider's own failures are, so that a 503 or a fallback it caused is in the log.
      if (error instanceof ProviderUnavailableError) {
        console.error(`[provider ${this.name}] ${what} failed (${error.kind}: ${error.message})`);
        throw error;
      }
      const kind = failureKindOf(error);
      const status = statusOf(error);
      console.error(`[provider ${this.name}] ${what} failed (${kind}${status ? `, HTTP ${status}` : ''})`);
      const answerBegan = markedAfterAnswerBegan(error) || (status !== undefined && status < 300);
      throw new ProviderUnavailableError(`${what} failed`, retryAfterSecondsOf(error), { cause: error, kind, answerBegan });
    }
  }

  /** A text answer of the language model, whole (doGenerate) or streamed to `onDelta` (doStream). */
  private complete(
    prompt: Prompt,
    responseFormat: LanguageCall['responseFormat'],
    limits: Pick<LanguageCall, 'maxOutputTokens' | 'temperature'>,
    signal: AbortSignal,
    onDelta?: TextDeltaSink,
  ): Promise<{ text: string } & GenerationMeta> {
    const model: LanguageModelV3 = this.model_('languageModel');
    const { maxRetries, module } = this.config;
    const call: LanguageCall = { prompt, responseFormat, ...limits, providerOptions: module.languageOptions, signal, maxRetries };
    return onDelta ? streamOnce(model, call, onDelta) : generateOnce(model, call);
  }

  generateText(task: TextTask, signal: AbortSignal): Promise<TextResult> {
    return this.call('text generation', signal, async () => {
      const json = task.outputFormat === 'json';
      const result = await this.complete(textPrompt(task), json ? { type: 'json' } : undefined, limitsOf(task), signal);
      if (json) parseJson(result.text);
      return result;
    });
  }

  streamText(task: TextTask, signal: AbortSignal, onDelta: TextDeltaSink): Promise<TextResult> {
    return this.call('text generation', signal, async () => {
      const format = task.outputFormat === 'json' ? ({ type: 'json' } as const) : undefined;
      return this.complete(textPrompt(task), format, limitsOf(task), signal, onDelta);
    });
  }

  generateCode(task: CodeTask, signal: AbortSignal): Promise<CodeResult> {
    return this.call('code generation', signal, async () => {
      // Structured output in the provider's own terms (JSON mode, a JSON schema, a tool call).
      const responseFormat: LanguageModelV3CallOptions['responseFormat'] =
        this.config.module.codeOutput === 'json-mode'
          ? { type: 'json' }
          : { type: 'json', schema: await codeSchema(), name: 'code_answer' };
      const { text, ...meta } = await this.complete(codePrompt(task), responseFormat, { maxOutputTokens: task.maxOutputTokens }, signal);
      const parsed = parseJson(text);
      const answer = CODE_OUTPUT.safeParse(parsed);
      if (!answer.success) throw malformed('the provider reply lacks code or explanation');
      return { code: answer.data.code, explanation: answer.data.explanation, ...meta };
    });
  }

  generateImage(task: ImageTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('image generation', signal, async () => {
      const text = task.style ? `${task.prompt}\n\nStyle: ${task.style}` : task.prompt;
      const result = await generateImage({
        model: this.model_('imageModel'),
        prompt: task.inputImage ? { images: [task.inputImage], text } : text,
        n: 1,
        providerOptions: this.config.module.imageOptions?.(task) as never,
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      const bytes = Buffer.from(result.image.uint8Array);
      if (bytes.length === 0) throw malformed('the provider returned no image data');
      const media = await checkedMedia(bytes, IMAGE_MIME[task.format]);
      const { inputTokens, outputTokens } = result.usage;
      return { ...media, usage: { images: result.images.length, inputTokens, outputTokens } };
    });
  }

  synthesizeSpeech(task: SpeechTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('speech synthesis', signal, async () => {
      const args = this.config.module.speechArgs?.(task) ?? { voice: task.voice, outputFormat: task.format, language: task.language };
      const result = await experimental_generateSpeech({
        model: this.model_('speechModel'),
        text: task.text,
        ...(args.voice ? { voice: args.voice } : {}),
        ...(args.outputFormat ? { outputFormat: args.outputFormat } : {}),
        ...(args.language ? { language: args.language } : {}),
        providerOptions: args.providerOptions as never,
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      const bytes = Buffer.from(result.audio.uint8Array);
      if (bytes.length === 0) throw malformed('the provider returned no audio');
      const media = await checkedMedia(bytes, task.format === 'mp3' ? 'audio/mpeg' : 'audio/wav');
      // Speech is billed by the characters sent; the SDK's result reports no count of its own.
      return { ...media, usage: { characters: task.text.length } };
    });
  }

  transcribe(task: TranscribeTask, signal: AbortSignal): Promise<Transcript> {
    return this.call('transcription', signal, async () => {
      const result = await experimental_transcribe({
        model: this.model_('transcriptionModel'),
        audio: task.bytes,
        providerOptions: this.config.module.transcriptionOptions?.(task) as never,
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      const transcript = transcriptOf(result, task.timestamps);
      return result.durationInSeconds === undefined ? transcript : { ...transcript, usage: { audioSeconds: result.durationInSeconds } };
    });
  }

  generateVideo(task: VideoTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('video generation', signal, async () => {
      if (this.config.models.videoAdapter) return this.model_('videoAdapter').generate(task, signal);
      // The SDK sends `prompt.image` as an image (a video's bytes went labelled image/png): a
      // video input gives its first frame, as the local engine does.
      const image =
        task.inputImage && task.inputMimeType?.startsWith('video/')
          ? await extractVideoFrame(task.inputImage, task.inputMimeType)
          : task.inputImage;
      const result = await withProviderCancel(this.config.apiFetch, signal, () =>
        experimental_generateVideo({
          model: this.model_('videoModel'),
          prompt: image ? { image, text: task.prompt } : task.prompt,
          n: 1,
          maxRetries: this.config.maxRetries,
          abortSignal: signal,
          // A video the provider answers by URL is read through the same capped, timed fetch.
          download: async ({ url, abortSignal }) => {
            const response = await this.config.fetch(url, { signal: abortSignal });
            if (!response.ok) throw new ProviderUnavailableError(`video download failed with HTTP ${response.status}`);
            return { data: new Uint8Array(await response.arrayBuffer()), mediaType: response.headers.get('content-type') ?? undefined };
          },
        }),
      );
      // The SDK's video result reports no duration: the event records none.
      return checkedMedia(Buffer.from(result.video.uint8Array), 'video/mp4');
    });
  }
}
