import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai-v7';
import { createTestKey } from '../../helpers/api';
import { testDatabaseUrl } from '../../setup/test-database';
import { originAt, ownAddresses } from '../support/product/addresses';
import * as products from '../support/product/product';
import type { Product, TestDatabase } from '../support/product/product';

// The OpenAI-compatible surface as customers reach it: npm start's server, driven by the official
// clients (openai 7, the AI SDK, LangChain), with keys whose packages sell every operation on the
// built-in engine under OpenAI model names.

export interface Setup {
  database: TestDatabase;
  product: Product;
}

export async function startSurface(prefix: string, env: Record<string, string> = {}): Promise<Setup> {
  products.ensureBuild();
  const database = await products.createDatabase(prefix);
  await products.useDatabaseInThisProcess(database.url);
  const product = await products.startProduct({ databaseUrl: database.url, env: { HOST: '0.0.0.0', ...env } });
  // Reached as a customer's client reaches it: from this machine's non-loopback address (192.0.2.2).
  return { database, product: { ...product, base: originAt(ownAddresses().ipv4, product.port) } };
}

export async function stopSurface(setup: Setup | undefined): Promise<void> {
  await setup?.product.stop();
  await products.useDatabaseInThisProcess(testDatabaseUrl());
  await setup?.database.drop().catch(() => {});
}

/** A key whose package sells every operation (local engine), with OpenAI model names as aliases. */
export const surfaceKey = (options: { quota?: number; requireKey?: boolean } = {}) =>
  createTestKey({
    quota: options.quota ?? 1000,
    ...(options.requireKey ? { openaiCompatible: { require_idempotency_key: true } } : {}),
    operations: {
      'text.generate': { engine: 'local', units: 1, model_aliases: ['gpt-4o-mini'] },
      'code.generate': { engine: 'local', units: 2, model_aliases: ['gpt-4.1-code'] },
      'images.generate': { engine: 'local', units: 5, output_formats: ['png', 'webp'], model_aliases: ['gpt-image-1'] },
      'audio.speech': { engine: 'local', units: 3, voices: ['alloy'], output_formats: ['mp3', 'wav'], model_aliases: ['tts-1'] },
      'audio.transcribe': { engine: 'local', units: 4, languages: ['en', 'fr'], model_aliases: ['whisper-1'] },
      'videos.generate': { engine: 'local', units: 20, model_aliases: ['sora-2'] },
    },
  });

/** The official SDK against `base` (the product, or a proxy in front of it), counting the requests it sends. */
export function sdk(base: string, apiKey: string, options: { maxRetries?: number } = {}) {
  const sent: { url: string; retry: string | null }[] = [];
  const client = new OpenAI({
    baseURL: `${base}/openai/v1`,
    apiKey,
    maxRetries: options.maxRetries ?? 2,
    fetch: async (url, init) => {
      sent.push({ url: String(url), retry: new Headers(init?.headers).get('x-stainless-retry-count') });
      return fetch(url, init);
    },
  });
  return { client, sent };
}

export interface LosingProxy {
  base: string;
  /** The answers the proxy read from the product and never passed on. */
  lost: string[];
  close(): Promise<void>;
}

/**
 * A proxy in front of the product that drops the answer of the first `drops` POSTs: it forwards each
 * request, reads the product's whole answer, then destroys the client's connection instead of
 * replying (the client sees a connection error, as after a network fault).
 */
export async function losingProxy(target: string, drops: number): Promise<LosingProxy> {
  const lost: string[] = [];
  const { hostname, port } = new URL(target);
  const server: Server = createServer((incoming, outgoing) => {
    const dropThis = incoming.method === 'POST' && lost.length < drops;
    const forward = httpRequest({ hostname, port, path: incoming.url, method: incoming.method, headers: incoming.headers }, (answer) => {
      const chunks: Buffer[] = [];
      answer.on('data', (chunk: Buffer) => chunks.push(chunk));
      answer.on('end', () => {
        const body = Buffer.concat(chunks);
        if (dropThis) {
          lost.push(body.toString());
          outgoing.socket?.destroy();
          return;
        }
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        outgoing.end(body);
      });
    });
    forward.on('error', () => outgoing.socket?.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${address.port}`,
    lost,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
