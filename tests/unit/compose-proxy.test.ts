import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { afterAll, describe, expect, it } from 'vitest';

// Outside audit of compose.yaml and deploy/compose/nginx.conf: MinIO's placeholder root password
// reached no check, the proxy handed MinIO's whole API to anyone naming minio.localhost, an
// S3_ENDPOINT in .env was overridden, and nginx kept the addresses it resolved at start.

const ROOT = resolve(import.meta.dirname, '../..');
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const { services } = parse(readFileSync(join(ROOT, 'compose.yaml'), 'utf8'), { merge: true }) as { services: Record<string, any> };
const nginx = readFileSync(join(ROOT, 'deploy', 'compose', 'nginx.conf'), 'utf8');
const envExample = readFileSync(join(ROOT, '.env.example'), 'utf8');
const APPS = ['app1', 'app2', 'worker'];

const scratch = mkdtempSync(join(tmpdir(), 'wgs-bucket-step-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** The bucket step's script as its shell gets it, run with a stand-in `mc` that logs its arguments. */
function runBucketStep(rootPassword: string): { status: number | null; stderr: string; mcCalls: string[] } {
  const log = join(scratch, `mc-${randomBytes(4).toString('hex')}.log`);
  writeFileSync(join(scratch, 'mc'), `#!/bin/sh\necho "$*" >> "${log}"\n`);
  chmodSync(join(scratch, 'mc'), 0o755);
  writeFileSync(log, '');
  const [shell, flags, script] = services.bucket.entrypoint as string[];
  const run = spawnSync(shell!, [flags!, script!.replaceAll('$$', '$')], {
    encoding: 'utf8',
    env: {
      PATH: `${scratch}:/usr/bin:/bin`,
      MINIO_ROOT_PASSWORD: rootPassword,
      S3_BUCKET: 'wgs-objects',
      MINIO_APP_USER: 'wgs-app',
      MINIO_APP_PASSWORD: randomBytes(16).toString('hex'),
    } as unknown as NodeJS.ProcessEnv,
  });
  return { status: run.status, stderr: run.stderr, mcCalls: readFileSync(log, 'utf8').split('\n').filter(Boolean) };
}

describe("MinIO's root password", () => {
  it('stops compose when unset (MinIO would fall back to its default credentials)', () => {
    expect(services.minio.environment.MINIO_ROOT_USER).toMatch(/^\$\{MINIO_ROOT_USER:\?[^}]+\}$/);
    expect(services.minio.environment.MINIO_ROOT_PASSWORD).toMatch(/^\$\{MINIO_ROOT_PASSWORD:\?[^}]+\}$/);
    expect(services.bucket.environment.MINIO_ROOT_PASSWORD).toMatch(/^\$\{MINIO_ROOT_PASSWORD[:?}]/);
  });

  it("left at .env.example's CHANGE-ME, the bucket step refuses in one line before any mc command, and no app service starts", () => {
    const placeholder = /^MINIO_ROOT_PASSWORD=(.*)$/m.exec(envExample)![1]!;
    expect(placeholder).toMatch(/^CHANGE-ME/);
    const refused = runBucketStep(placeholder);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/^bucket: MINIO_ROOT_PASSWORD is still the CHANGE-ME placeholder; set it in \.env/),
    ]);
    expect(refused.mcCalls).toEqual([]);
    for (const app of APPS) expect(services[app].depends_on.bucket.condition, app).toBe('service_completed_successfully');
    expect(services.bucket.restart).toBe('no');

    const accepted = runBucketStep(randomBytes(32).toString('hex'));
    expect(accepted.status, accepted.stderr).toBe(0);
    expect(accepted.mcCalls[0]).toBe('mb --ignore-existing store/wgs-objects');
    expect(accepted.mcCalls.filter((call) => call.startsWith('admin user add store wgs-app '))).toHaveLength(1);
  });
});

describe("the app services' environment", () => {
  it('hard-codes nothing over .env but the shape of compose (the S3 driver, workers apart); S3_ENDPOINT and path style come from .env when set', () => {
    for (const app of APPS) {
      const env = services[app].environment as Record<string, string>;
      const literal = Object.entries(env).filter(([, value]) => value !== '' && !String(value).includes('${'));
      expect(literal.map(([name]) => name).sort(), app).toEqual(['RUN_WORKER', 'STORAGE_DRIVER']);
      expect(env.S3_ENDPOINT, app).toBe('${S3_ENDPOINT:-http://minio.localhost:8080}');
      expect(env.S3_FORCE_PATH_STYLE, app).toBe('${S3_FORCE_PATH_STYLE:-true}');
    }
  });
});

describe('the proxy (deploy/compose/nginx.conf)', () => {
  const upstreams = new Map([...nginx.matchAll(/^upstream (\w+) \{([^}]*)\}/gm)].map((match) => [match[1]!, match[2]!]));
  const minioServer = nginx.slice(nginx.indexOf('server_name minio.localhost;'));

  it("re-resolves every upstream through Docker's DNS, so a recreated container is found at its new address", () => {
    const version = /^nginx:(\d+)\.(\d+)\.(\d+)/.exec(services.proxy.image)!.slice(1).map(Number);
    // `resolve` in an open-source upstream: nginx 1.27.3 and later
    expect(version[0]! * 1e6 + version[1]! * 1e3 + version[2]!).toBeGreaterThanOrEqual(1_027_003);
    const resolver = /^resolver 127\.0\.0\.11 valid=(\d+)s\b/m.exec(nginx);
    expect(Number(resolver?.[1])).toBeLessThanOrEqual(30);
    expect([...upstreams.keys()].sort()).toEqual(['minio', 'wgs']);
    for (const [name, body] of upstreams) {
      expect(body, name).toMatch(/^\s*zone \w+ \d+k;/m);
      const servers = body.match(/^\s*server .*$/gm)!;
      for (const server of servers) expect(server.trim(), name).toMatch(/ resolve;$/);
    }
    // as before: least connections, kept-alive connections, a failed instance skipped for 5 s and its request tried on the other
    expect(upstreams.get('wgs')).toMatch(/least_conn;[\s\S]*server app1:3000 max_fails=1 fail_timeout=5s resolve;[\s\S]*keepalive 32;/);
    expect(nginx).toContain('proxy_next_upstream error timeout;');
    expect(nginx).not.toMatch(/non_idempotent/);
    expect(nginx).not.toMatch(/proxy_pass http:\/\/(?!wgs;|minio;)/);
  });

  it("passes minio.localhost to MinIO for S3_BUCKET's paths only: no admin API, STS, metrics or bucket list", () => {
    const locations = [...minioServer.matchAll(/location (.+?) \{\n([^}]*)\}/g)].map((match) => [match[1]!, match[2]!.trim()]);
    expect(locations).toEqual([
      ['= /${S3_BUCKET}', 'proxy_pass http://minio;'],
      ['/${S3_BUCKET}/', 'proxy_pass http://minio;'],
      ['/', 'return 403;'],
    ]);
    // a template: the image's entrypoint writes S3_BUCKET in, and no other variable
    expect([...new Set(nginx.match(/\$\{\w+\}/g))]).toEqual(['${S3_BUCKET}']);
    expect(services.proxy.volumes).toEqual(['./deploy/compose/nginx.conf:/etc/nginx/templates/default.conf.template:ro']);
    expect(services.proxy.environment).toEqual({ NGINX_ENVSUBST_FILTER: 'S3_BUCKET', S3_BUCKET: '${S3_BUCKET:?set S3_BUCKET in .env}' });
  });
});
