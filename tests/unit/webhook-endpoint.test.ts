import { afterEach, describe, expect, it } from 'vitest';
import { resetConfigForTests } from '@/server/config';
import { isPrivateAddress, webhookUrlProblem } from '@/server/domain/webhooks/endpoint-address';
import { retryDelaySeconds } from '@/server/domain/webhooks/deliver-webhook';

// Which webhook endpoints are allowed, and the retry schedule with its jitter.

function withEnv(env: Record<string, string>): void {
  Object.assign(process.env, env);
  resetConfigForTests();
}

afterEach(() => {
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  delete process.env.WEBHOOK_RETRY_SCHEDULE_SECONDS;
  resetConfigForTests();
});

describe('webhook endpoints', () => {
  it('takes public https URLs only by default', () => {
    withEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    expect(webhookUrlProblem('https://hooks.example.com/wgs')).toBeNull();
    expect(webhookUrlProblem('https://93.184.216.34/wgs')).toBeNull();
    expect(webhookUrlProblem('http://hooks.example.com/wgs')).toMatch(/https/);
    for (const url of [
      'https://127.0.0.1/x',
      'https://localhost/x',
      'https://api.localhost/x',
      'https://10.1.2.3/x',
      'https://172.20.0.1/x',
      'https://192.168.1.1/x',
      'https://[::1]/x',
      'https://[fd00::1]/x',
      'https://[::ffff:127.0.0.1]/x',
      'https://0.0.0.0/x',
    ]) {
      expect(webhookUrlProblem(url), url).toMatch(/public/);
    }
    expect(webhookUrlProblem('https://169.254.169.254/latest/meta-data')).toMatch(/metadata or link-local/);
    expect(webhookUrlProblem('not a url')).toMatch(/absolute/);
    expect(webhookUrlProblem('https://user:pw@hooks.example.com/')).toMatch(/user name/);
    expect(webhookUrlProblem('https://hooks.example.com:0/')).toMatch(/port 0/);
    expect(webhookUrlProblem('https://hooks.example.com:8443/')).toBeNull();
    expect(webhookUrlProblem('https://[fec0::1]:22/')).toMatch(/public/);
  });

  it('refuses a URL with whitespace or control characters, which new URL() would drop silently (they reached the security e-mail)', () => {
    for (const url of [
      'https://hooks.example.com/x\n\nReply with the code below',
      'https://hooks.example.com/a\r\nCode: AAAA',
      'https://hooks.example.com/\tx',
      ' https://hooks.example.com/x',
      'https://hooks.example.com/x\u0085',
    ]) {
      expect(webhookUrlProblem(url), JSON.stringify(url)).toMatch(/control characters/);
    }
  });

  it('refuses localhost in every spelling, private addresses in every notation and names outside the public DNS, saying why', () => {
    withEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' });
    const refusals: [url: string, reason: RegExp][] = [
      ['https://localhost./x', /localhost\. is this machine \(localhost\)/],
      ['https://LOCALHOST./x', /is this machine/],
      ['https://api.localhost./x', /is this machine/],
      ['https://localhost../x', /is this machine/],
      ['https://2130706433/x', /127\.0\.0\.1 is a private or reserved address/], // decimal
      ['https://017700000001/x', /127\.0\.0\.1 is a private or reserved address/], // octal
      ['https://0x7f.1/x', /127\.0\.0\.1 is a private or reserved address/], // hex, short form
      ['https://0300.0250.0.1/x', /192\.168\.0\.1 is a private or reserved address/],
      ['https://127.1./x', /127\.0\.0\.1 is a private or reserved address/],
      ['https://[::ffff:10.0.0.1]/x', /is a private or reserved address/], // IPv4-mapped IPv6
      ['https://[::ffff:a00:1]/x', /is a private or reserved address/],
      ['https://[64:ff9b::a00:1]/x', /is a private or reserved address/], // NAT64 of 10.0.0.1
      ['https://intranet/x', /intranet is not a public DNS name/],
      ['https://hooks.internal/x', /not a public DNS name/],
      ['https://printer.local/x', /not a public DNS name/],
      ['https://hooks.corp/x', /not a public DNS name/],
      ['https://hooks.lan/x', /not a public DNS name/],
      ['https://router.home.arpa/x', /not a public DNS name/],
      ['https://x.test/x', /not a public DNS name/],
      ['https://x.example/x', /not a public DNS name/],
      ['https://x.invalid/x', /not a public DNS name/],
      ['https://hidden.onion/x', /not a public DNS name/],
      ['https://co.uk/x', /not a public DNS name/], // a public suffix, nobody's host
    ];
    for (const [url, reason] of refusals) {
      const problem = webhookUrlProblem(url);
      expect(problem, url).toMatch(/^must name a public host: /);
      expect(problem, url).toMatch(reason);
      expect(problem, url).toMatch(/\(private networks need WEBHOOK_ALLOW_PRIVATE_NETWORKS=true\)$/);
      // A customer (the portal) is not told of the operator's setting.
      expect(webhookUrlProblem(url, 'customer'), url).toBe(
        problem!.replace(' (private networks need WEBHOOK_ALLOW_PRIVATE_NETWORKS=true)', ''),
      );
    }
    for (const url of [
      'https://hooks.example.com./wgs',
      'https://hooks.example.co.uk/wgs',
      'https://my-app.github.io/wgs',
      'https://xn--80ak6aa92e.com/wgs',
      'https://[2606:4700::1111]/wgs',
    ]) {
      expect(webhookUrlProblem(url), url).toBeNull();
    }
  });

  it('takes http and private addresses with WEBHOOK_ALLOW_PRIVATE_NETWORKS=true', () => {
    withEnv({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
    expect(webhookUrlProblem('http://127.0.0.1:8080/hook')).toBeNull();
    expect(webhookUrlProblem('https://10.0.0.5/hook')).toBeNull();
    expect(webhookUrlProblem('http://localhost.:8080/hook')).toBeNull();
    expect(webhookUrlProblem('http://hooks.corp:8080/hook')).toBeNull();
    expect(webhookUrlProblem('ftp://10.0.0.5/hook')).toMatch(/https/);
    // Never link-local or metadata, whatever the setting (the IPv6 and NAT64 spellings too).
    for (const url of [
      'http://169.254.169.254/',
      'http://2852039166/', // 169.254.169.254 in decimal
      'http://[::ffff:a9fe:a9fe]/',
      'http://[fe80::1]/',
      'http://[fd00:ec2::23]/',
      'http://[fd20:ce::254]/',
      'http://[64:ff9b::a9fe:a9fe]/',
      'http://[64:ff9b:1::a9fe:a9fe]/', // the local-use NAT64 prefix
      'http://[::ffff:0:a9fe:a9fe]/', // translated
      'http://100.100.100.200/',
      'http://metadata.google.internal./',
    ]) {
      expect(webhookUrlProblem(url), url).toMatch(/metadata or link-local/);
    }
  });

  it('tells private addresses from public ones', () => {
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2606:4700::1111')).toBe(false);
    expect(isPrivateAddress('100.64.0.1')).toBe(true);
    expect(isPrivateAddress('::ffff:10.0.0.1')).toBe(true);
    expect(isPrivateAddress('fe80::1')).toBe(true);
    // Documentation, benchmarking, discard and other never-routed ranges are no endpoint's.
    for (const address of [
      '192.0.2.2',
      '198.51.100.1',
      '203.0.113.1',
      '192.88.99.1',
      '2001:db8::1',
      '3fff::1',
      '100::1',
      '2001:10::1',
      '2001:2::1',
      'fec0::1', // site-local
    ])
      expect(isPrivateAddress(address), address).toBe(true);
    expect(isPrivateAddress('::ffff:0:7f00:1')).toBe(true); // 127.0.0.1, translated (RFC 2765)
  });
});

describe('the retry schedule', () => {
  it('waits each entry in turn with +-10% jitter, Retry-After when longer, then gives up', () => {
    withEnv({ WEBHOOK_RETRY_SCHEDULE_SECONDS: '5,300' });
    for (let i = 0; i < 50; i++) {
      const first = retryDelaySeconds(1)!;
      expect(first).toBeGreaterThanOrEqual(4.5);
      expect(first).toBeLessThanOrEqual(5.5);
      const second = retryDelaySeconds(2)!;
      expect(second).toBeGreaterThanOrEqual(270);
      expect(second).toBeLessThanOrEqual(330);
    }
    expect(retryDelaySeconds(1, 120)).toBe(120);
    expect(retryDelaySeconds(3)).toBeNull();
  });

  it('defaults to 5,300,1800,7200,18000,36000,36000', () => {
    withEnv({});
    expect(retryDelaySeconds(7)).toBeGreaterThanOrEqual(32_400);
    expect(retryDelaySeconds(8)).toBeNull();
  });
});
