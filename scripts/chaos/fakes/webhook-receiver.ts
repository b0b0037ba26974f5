import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Webhook } from 'standardwebhooks';
import type { FaultLog } from '../faults/fault-log';

// The keys' job webhook endpoint (Standard Webhooks) on 127.0.0.1: it checks each delivery's
// signature with its key's secret and records it, and fails (500) the first delivery of each event
// of the jobs the run marked, so the product has to deliver again.

export interface WebhookDelivery {
  key: string;
  webhookId: string;
  type: string;
  jobId: string;
  status: number;
  signed: boolean;
}

export interface WebhookReceiver {
  urlFor(keyName: string): string;
  setSecret(keyName: string, secret: string): void;
  /** The next delivery of each event of this job is refused. */
  failFirst(jobId: string, callId: string): void;
  deliveries: WebhookDelivery[];
  close(): Promise<void>;
}

export async function startWebhookReceiver(faults: FaultLog): Promise<WebhookReceiver> {
  const secrets = new Map<string, string>();
  const failing = new Map<string, string>();
  const failedOnce = new Set<string>();
  const deliveries: WebhookDelivery[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const payload = Buffer.concat(chunks).toString('utf8');
    const key = decodeURIComponent((request.url ?? '').split('/').pop() ?? '');
    const webhookId = String(request.headers['webhook-id'] ?? '');
    let signed = false;
    try {
      new Webhook(secrets.get(key) ?? '').verify(payload, request.headers as Record<string, string>);
      signed = true;
    } catch {
      // recorded as unsigned
    }
    const event = JSON.parse(payload) as { type: string; data: { job_id: string } };
    const callId = failing.get(event.data.job_id);
    const fail = callId !== undefined && !failedOnce.has(webhookId);
    if (fail) {
      failedOnce.add(webhookId);
      faults.note('webhook-receiver-failed', callId);
    }
    const status = fail ? 500 : 204;
    deliveries.push({ key, webhookId, type: event.type, jobId: event.data.job_id, status, signed });
    response.writeHead(status).end();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    urlFor: (keyName) => `${origin}/hooks/${encodeURIComponent(keyName)}`,
    setSecret: (keyName, secret) => secrets.set(keyName, secret),
    failFirst: (jobId, callId) => failing.set(jobId, callId),
    deliveries,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
