import { experimental_generateSpeech, experimental_generateVideo, experimental_transcribe, generateImage, generateText, Output } from 'ai';
import { z } from 'zod';
import { checkedMedia } from '../checked-media';
import { extractVideoFrame } from '../local/video';
import {
  ProviderUnavailableError,
  type CodeTask,
  type Engine,
  type ImageTask,
  type MediaResult,
  type SpeechTask,
  type TextTask,
  type Transcript,
  type TranscribeTask,
  type VideoTask,
} from '../engine';
import { failureKindOf, retryAfterOf } from './failure-kind';
import './prime-sdk-schemas';
import type { ProviderModule, SdkModels } from './provider-module';

// Every provider type but `openai`, through the Vercel AI SDK. The SDK provider is built once per
// provider (resolve-engine caches it); this engine is one model of it. Every failure becomes
// ProviderUnavailableError with its kind; the caller answers 503 and passes no provider text on.

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
}

const TEXT_SYSTEM: Record<TextTask['outputFormat'], string> = {
  text: 'Answer in plain text without markdown.',
  markdown: 'Answer in GitHub-flavoured markdown.',
  json: 'Answer with one JSON object and nothing else.',
};

const CODE_SYSTEM = 'You write and analyse code. Never claim to have executed anything. Reply with the code and a short explanation of it.';

const CODE_OUTPUT = z.object({ code: z.string(), explanation: z.string() });
const IMAGE_MIME = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
const TRANSCRIPT_SEGMENTS = z.array(
  z.object({ start: z.number().min(0), end: z.number().min(0), text: z.string() }).refine((s) => s.end >= s.start),
);

function malformed(message: string): ProviderUnavailableError {
  return new ProviderUnavailableError(message, 5, { kind: 'malformed' });
}

export class AiSdkEngine implements Engine {
  readonly name: string;

  constructor(
    private readonly config: AiSdkEngineConfig,
    private readonly model: string,
  ) {
    this.name = `${config.name}:${model}`;
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

  private async call<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (!this.config.apiKey) {
      console.error(`[provider ${this.config.name}] its API key is not set`);
      throw new ProviderUnavailableError(`provider ${this.config.name} has no API key configured`, 30, { kind: 'not_configured' });
    }
    try {
      return await work();
    } catch (error) {
      if (error instanceof ProviderUnavailableError) throw error;
      const kind = failureKindOf(error);
      const status =
        (error as { statusCode?: number; lastError?: { statusCode?: number } }).statusCode ??
        (error as { lastError?: { statusCode?: number } }).lastError?.statusCode;
      console.error(`[provider ${this.name}] ${what} failed (${kind}${status ? `, HTTP ${status}` : ''})`);
      throw new ProviderUnavailableError(`${what} failed`, retryAfterOf(error), { cause: error, kind });
    }
  }

  generateText(task: TextTask, signal: AbortSignal): Promise<{ text: string }> {
    return this.call('text generation', async () => {
      const prompt = task.context ? `Context:\n${task.context}\n\nInput:\n${task.input}` : task.input;
      const json = task.outputFormat === 'json';
      const result = await generateText({
        model: this.model_('languageModel'),
        system: TEXT_SYSTEM[task.outputFormat],
        prompt,
        ...(json ? { output: Output.json() } : {}),
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      const text = result.text;
      // An answer with no text is no answer: 503 with nothing charged, not a paid empty result.
      if (text.trim() === '') throw malformed('empty completion');
      if (json) {
        try {
          JSON.parse(text);
        } catch {
          throw malformed('the provider returned invalid JSON');
        }
      }
      return { text };
    });
  }

  generateCode(task: CodeTask, signal: AbortSignal): Promise<{ code: string; explanation: string }> {
    return this.call('code generation', async () => {
      const prompt = [
        task.language ? `Language: ${task.language}` : '',
        task.requirements.length ? `Requirements:\n${task.requirements.map((r) => `- ${r}`).join('\n')}` : '',
        `Input:\n${task.input}`,
      ]
        .filter(Boolean)
        .join('\n\n');
      // Structured output in the provider's own terms (JSON mode, a JSON schema, a tool call).
      const result = await generateText({
        model: this.model_('languageModel'),
        system: CODE_SYSTEM,
        prompt,
        output: Output.object({ schema: CODE_OUTPUT, name: 'code_answer' }),
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      const { code, explanation } = result.output;
      return { code, explanation };
    });
  }

  generateImage(task: ImageTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('image generation', async () => {
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
      return checkedMedia(bytes, IMAGE_MIME[task.format], `${this.name} image`);
    });
  }

  synthesizeSpeech(task: SpeechTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('speech synthesis', async () => {
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
      return checkedMedia(bytes, task.format === 'mp3' ? 'audio/mpeg' : 'audio/wav', `${this.name} speech`);
    });
  }

  transcribe(task: TranscribeTask, signal: AbortSignal): Promise<Transcript> {
    return this.call('transcription', async () => {
      const result = await experimental_transcribe({
        model: this.model_('transcriptionModel'),
        audio: task.bytes,
        providerOptions: this.config.module.transcriptionOptions?.(task) as never,
        maxRetries: this.config.maxRetries,
        abortSignal: signal,
      });
      if (typeof result.text !== 'string') throw malformed('the provider returned no text');
      if (task.timestamps === 'none') return { text: result.text, segments: [] };
      // Word-level providers (ElevenLabs) also list the spaces between words: those are dropped.
      const segments = TRANSCRIPT_SEGMENTS.safeParse(
        result.segments
          .map((segment) => ({ start: segment.startSecond, end: segment.endSecond, text: segment.text.trim() }))
          .filter((segment) => segment.text !== ''),
      );
      if (!segments.success) throw malformed('the provider returned malformed segments');
      return { text: result.text, segments: segments.data };
    });
  }

  generateVideo(task: VideoTask, signal: AbortSignal): Promise<MediaResult> {
    return this.call('video generation', async () => {
      // The SDK sends `prompt.image` as an image (a video's bytes went labelled image/png): a
      // video input gives its first frame, as the local engine does.
      const image =
        task.inputImage && task.inputMimeType?.startsWith('video/')
          ? await extractVideoFrame(task.inputImage, task.inputMimeType)
          : task.inputImage;
      const result = await experimental_generateVideo({
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
      });
      return checkedMedia(Buffer.from(result.video.uint8Array), 'video/mp4', `${this.name} video`);
    });
  }
}
