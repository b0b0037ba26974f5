import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderUnavailableError } from '@/server/providers/engine';
import { openAiVideoAdapter, VIDEO_POLL_DEADLINE_MS } from '@/server/providers/ai-sdk/types/openai-video';
import { allowProviderPrivateOrigin } from '@/server/providers/outbound/provider-door';

// An `openai` video its provider never finishes fails as provider_unavailable after a deadline, as
// the AI SDK's own video models do; it was polled until the queue expired the job (outside audit).

let server: Server;
let baseURL: string;
const polls: string[] = [];

beforeAll(async () => {
  server = createServer((request, response) => {
    polls.push(`${request.method} ${request.url}`);
    if (request.url?.endsWith('/content')) {
      response.writeHead(200, { 'content-type': 'video/mp4', 'content-length': '1000000' }).write(Buffer.alloc(100)); // then nothing
      return;
    }
    // Key sk-finished: the video is done at once; any other: it never is.
    const finished = request.headers.authorization === 'Bearer sk-finished';
    const status = finished ? 'completed' : request.method === 'POST' ? 'queued' : 'in_progress';
    const video = { id: 'video_1', object: 'video', model: 'sora-2', status, progress: 10 };
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(video));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  allowProviderPrivateOrigin('openai-video-deadline', baseURL); // the fake is on this machine
});
afterAll(async () => {
  allowProviderPrivateOrigin('openai-video-deadline', null);
  await new Promise((resolve) => server.close(resolve));
});

describe('openai videos', () => {
  it('are polled for at most 10 minutes, then fail as a timeout of the provider', async () => {
    expect(VIDEO_POLL_DEADLINE_MS).toBe(600_000);
    const adapter = openAiVideoAdapter({ baseURL, apiKey: 'sk-test', timeoutMs: 5_000, maxRetries: 0, pollDeadlineMs: 1_000 }, 'sora-2');
    const failed = await adapter.generate({ prompt: 'a cat' }, new AbortController().signal).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ProviderUnavailableError);
    expect(failed).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/did not finish within/) });
    expect(polls).toEqual(['POST /v1/videos', 'GET /v1/videos/video_1']);
  });

  it('are downloaded within PROVIDER_TIMEOUT_MS an attempt, body included: a download that stalls after its headers ends (jobs audit)', async () => {
    polls.length = 0;
    const adapter = openAiVideoAdapter({ baseURL, apiKey: 'sk-finished', timeoutMs: 500, maxRetries: 0 }, 'sora-2');
    const failed = await adapter.generate({ prompt: 'a cat' }, new AbortController().signal).catch((error: unknown) => error);
    expect(failed).toMatchObject({ name: 'TimeoutError' });
    expect(polls).toEqual(['POST /v1/videos', 'GET /v1/videos/video_1/content']);
  });
});
