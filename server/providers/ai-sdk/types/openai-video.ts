import { APICallError } from 'ai';
import OpenAI, { toFile } from 'openai';
import { cappedFetch } from '../../capped-fetch';
import { checkedMedia } from '../../checked-media';
import { ProviderUnavailableError, type MediaResult, type VideoTask } from '../../engine';
import type { VideoAdapter } from '../provider-module';

// The `openai` type's videos (the AI SDK has no OpenAI video model): create, poll, download
// through the official client, with its own timeout and bounded retries per HTTP call. Its errors
// leave here in the AI SDK's vocabulary, so the one classifier (failure.ts) reads them.

const VIDEO_POLL_MS = 2_000;

/**
 * A video not finished this long after it was asked for fails as provider_unavailable, as the AI
 * SDK's Google and xAI video models give up (10 minutes): polled on, it held its job's units
 * until the queue expired the attempt (JOB_EXPIRE_SECONDS) and tried it again.
 */
export const VIDEO_POLL_DEADLINE_MS = 600_000;

export interface OpenAiVideoConfig {
  baseURL: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  /** VIDEO_POLL_DEADLINE_MS unless given (tests). */
  pollDeadlineMs?: number;
}

/** An OpenAI client error as the AI SDK would have thrown it: an APICallError (status, headers) or a timeout. */
function asSdkError(error: unknown, url: string): unknown {
  if (error instanceof OpenAI.APIConnectionTimeoutError || error instanceof OpenAI.APIUserAbortError) {
    return new DOMException('The operation timed out.', 'TimeoutError');
  }
  if (error instanceof OpenAI.APIConnectionError) {
    return new APICallError({ message: 'connection failed', url, requestBodyValues: {}, cause: error, isRetryable: false });
  }
  if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
    const responseHeaders: Record<string, string> = {};
    error.headers?.forEach((value: string, name: string) => (responseHeaders[name] = value));
    return new APICallError({
      message: `HTTP ${error.status}`,
      url,
      requestBodyValues: {},
      statusCode: error.status,
      responseHeaders,
      cause: error,
      isRetryable: false, // the client has retried already
    });
  }
  return error;
}

export function openAiVideoAdapter(config: OpenAiVideoConfig, model: string): VideoAdapter {
  const client = new OpenAI({
    apiKey: config.apiKey,
    baseURL: config.baseURL,
    timeout: config.timeoutMs,
    maxRetries: config.maxRetries,
    // The client's own timeout ends when the headers arrive: a download that stalls after them
    // held its job (and a worker's slot) until the queue expired it. Each attempt, body included,
    // is bounded as every other provider call is.
    fetch: ((input: string | URL | Request, init?: RequestInit) => cappedFetch(input, init, config.timeoutMs)) as typeof fetch,
  });
  const url = `${config.baseURL}/videos`;
  const pollDeadlineMs = config.pollDeadlineMs ?? VIDEO_POLL_DEADLINE_MS;
  return {
    async generate(task: VideoTask, signal: AbortSignal): Promise<MediaResult> {
      try {
        let video = await client.videos.create(
          {
            model: model as never,
            prompt: task.prompt,
            ...(task.inputImage ? { input_reference: await toFile(task.inputImage, 'input', { type: task.inputMimeType }) } : {}),
          },
          { signal },
        );
        const deadline = Date.now() + pollDeadlineMs;
        while (video.status === 'queued' || video.status === 'in_progress') {
          if (Date.now() >= deadline) {
            throw new ProviderUnavailableError(`video generation did not finish within ${pollDeadlineMs / 60_000} minutes`, 5, {
              kind: 'timeout',
            });
          }
          await new Promise((resolve) => setTimeout(resolve, VIDEO_POLL_MS));
          if (signal.aborted) throw new ProviderUnavailableError('video generation timed out', 5, { kind: 'timeout' });
          video = await client.videos.retrieve(video.id, { signal });
        }
        if (video.status !== 'completed') throw new ProviderUnavailableError('video generation failed');
        const content = await client.videos.downloadContent(video.id, {}, { signal });
        const media = await checkedMedia(Buffer.from(await content.arrayBuffer()), 'video/mp4');
        // The video object says how long the video is (OpenAI bills video by the second).
        const seconds = Number(video.seconds);
        return Number.isFinite(seconds) && seconds > 0 ? { ...media, usage: { videoSeconds: seconds } } : media;
      } catch (error) {
        throw asSdkError(error, url);
      }
    },
  };
}
