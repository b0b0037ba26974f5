import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { getPool, getPrisma, getSqlDb } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { CLAIM_SECONDS, DELIVERY_DEADLINE_MS, postSigned } from '@/server/domain/webhooks/deliver-webhook';
import { webhookUrlProblem } from '@/server/domain/webhooks/endpoint-address';
import { setKeyWebhook } from '@/server/domain/webhooks/manage-webhook';
import { openWebhookSecret, sealLegacyWebhookSecrets } from '@/server/domain/webhooks/webhook-secrets';
import { createTestKey } from '../helpers/api';
import { operatorCaller } from './trpc/helpers';

// Webhooks, sealed: the signing secret is encrypted at rest (and secrets stored in plain text by
// an earlier version are sealed at start), an attempt has a total deadline and reads little of
// the answer, and a viewer sees an endpoint's host, never its path or query.

const servers: (Server | TcpServer)[] = [];
afterAll(() => servers.forEach((server) => server.close()));
afterEach(() => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  resetConfigForTests();
});

function allowPrivate(): void {
  process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = 'true';
  resetConfigForTests();
}

async function listening<T extends Server | TcpServer>(server: T): Promise<{ server: T; port: number }> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

describe('the signing secret at rest', () => {
  it('is not readable in the database: sealed in webhook_secrets, nothing in api_keys', async () => {
    const { id } = await createTestKey();
    const { secret } = await setKeyWebhook(getPrisma(), CLI_ACTOR, id, 'https://hooks.example.com/wgs?token=abc');
    const { rows } = await getPool().query(
      `SELECT k.webhook_secret, s.iv, s.ciphertext, s.auth_tag FROM api_keys k JOIN webhook_secrets s ON s.api_key_id = k.id WHERE k.id = $1`,
      [id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].webhook_secret).toBeNull();
    const raw = Buffer.from(secret.slice('whsec_'.length), 'base64');
    expect((rows[0].ciphertext as Buffer).includes(raw.subarray(0, 8))).toBe(false);
    expect((rows[0].ciphertext as Buffer).toString('latin1')).not.toContain(secret.slice(6, 20));
    expect(openWebhookSecret(id, rows[0])).toBe(secret);
    // Bound to its key: another key's row cannot open it.
    const other = await createTestKey();
    expect(() => openWebhookSecret(other.id, rows[0])).toThrow(/cannot be decrypted/);
  });

  it('a secret stored in plain text by an earlier version is sealed at start, the same secret, the column emptied', async () => {
    const { id } = await createTestKey();
    const legacy = `whsec_${randomBytes(32).toString('base64')}`;
    await getPool().query(`UPDATE api_keys SET webhook_url = 'https://hooks.example.com/old', webhook_secret = $2 WHERE id = $1`, [
      id,
      legacy,
    ]);
    expect(await sealLegacyWebhookSecrets(getPrisma(), getSqlDb())).toBeGreaterThanOrEqual(1);
    const { rows } = await getPool().query(
      `SELECT k.webhook_secret, s.iv, s.ciphertext, s.auth_tag FROM api_keys k JOIN webhook_secrets s ON s.api_key_id = k.id WHERE k.id = $1`,
      [id],
    );
    expect(rows[0].webhook_secret).toBeNull();
    expect(openWebhookSecret(id, rows[0])).toBe(legacy);
    expect(await sealLegacyWebhookSecrets(getPrisma(), getSqlDb())).toBe(0);
  });
});

describe('an attempt', () => {
  it('has a total deadline shorter than its claim: an endpoint trickling its answer byte by byte is cut off', async () => {
    expect(DELIVERY_DEADLINE_MS).toBeLessThan(CLAIM_SECONDS * 1000);
    allowPrivate();
    // Each byte comes before any idle timeout would fire; the headers never end.
    const { port } = await listening(
      createTcpServer((socket: Socket) => {
        socket.on('data', () => {});
        socket.write('HTTP/1.1 200 OK\r\n');
        const timer = setInterval(() => socket.write('X-Slow: y\r\n'), 100);
        socket.on('close', () => clearInterval(timer));
        socket.on('error', () => clearInterval(timer));
      }),
    );
    const started = Date.now();
    const answer = await postSigned(`http://127.0.0.1:${port}/hook`, {}, '{}', 800);
    expect(Date.now() - started).toBeLessThan(3000);
    expect(answer).toEqual({ error: 'no complete answer within 0.8 s' });
  });

  it('reads at most a little of the answer: an endless body is not drained, the connection is closed', async () => {
    allowPrivate();
    let written = 0;
    let closed = false;
    const { port } = await listening(
      createServer((request, response) => {
        request.resume();
        response.writeHead(200, { 'content-type': 'text/plain' });
        const chunk = Buffer.alloc(64 * 1024, 0x61);
        const pump = () => {
          while (!closed && response.write(chunk)) written += chunk.length;
        };
        response.on('drain', pump);
        response.on('close', () => (closed = true));
        pump();
      }),
    );
    const answer = await postSigned(`http://127.0.0.1:${port}/hook`, {}, '{}', 5000);
    expect(answer).toEqual({ status: 200 });
    await expect.poll(() => closed, { timeout: 2000 }).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
  });

  it('never reaches a metadata or link-local address, even with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async () => {
    allowPrivate();
    expect(webhookUrlProblem('http://169.254.169.254/latest')).toMatch(/metadata or link-local/);
    expect(webhookUrlProblem('http://[fd00:ec2::23]/')).toMatch(/metadata or link-local/);
    expect(webhookUrlProblem('http://[64:ff9b::a9fe:a9fe]/')).toMatch(/metadata or link-local/);
    expect(webhookUrlProblem('http://10.0.0.5/hook')).toBeNull();
    // A URL stored before the rule: the door refuses the connection itself.
    expect(await postSigned('http://169.254.169.254/latest', {}, '{}', 2000)).toEqual({
      error: 'refused: 169.254.169.254 is a private or reserved address that is never reached (link-local or cloud metadata)',
    });
  });

  it('reaches a private address only while WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', async () => {
    const { port } = await listening(createServer((request, response) => request.resume().on('end', () => response.end('ok'))));
    expect(await postSigned(`http://127.0.0.1:${port}/hook`, {}, '{}', 2000)).toEqual({
      error: 'refused: 127.0.0.1 is a private or reserved address',
    });
    allowPrivate();
    expect(await postSigned(`http://127.0.0.1:${port}/hook`, {}, '{}', 2000)).toEqual({ status: 200 });
  });
});

describe('who sees the endpoint', () => {
  it('a viewer sees its host only; admins and owners the whole URL; the audit log the host', async () => {
    const { id } = await createTestKey();
    await operatorCaller('owner'); // the first operator of a database is an owner
    const { caller: admin } = await operatorCaller('admin');
    await admin.keys.setWebhook({ id, url: 'https://hooks.example.com:8443/wgs/T0123/secret-path?token=abc' });
    const { caller: viewer } = await operatorCaller('viewer');
    const seen = await viewer.keys.webhook({ id });
    expect(seen).toMatchObject({ url: null, host: 'hooks.example.com:8443' });
    expect(JSON.stringify(seen)).not.toMatch(/secret-path|token/);
    expect(JSON.stringify(await viewer.audit.list({}))).not.toMatch(/secret-path|token=abc/);
    expect((await admin.keys.webhook({ id })).url).toBe('https://hooks.example.com:8443/wgs/T0123/secret-path?token=abc');
  });
});
