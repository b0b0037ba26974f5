import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { listenOn } from '@/server/lifecycle/listen';

// A start that cannot listen names the setting at fault, not only Node's error code (configuration audit).

describe('listenOn', () => {
  it.each([['nope.invalid'], ['192.0.2.99']])('names HOST when %s is no address of this machine', async (host) => {
    await expect(listenOn(createServer(), 0, host, 'PORT')).rejects.toThrow(
      new RegExp(`^HOST ${host.replaceAll('.', '\\.')} is no address of this machine \\(E[A-Z]+\\)`),
    );
  });

  it('passes any other failure on as Node reports it', async () => {
    await expect(listenOn(createServer(), 70_000, '127.0.0.1', 'PORT')).rejects.toMatchObject({ code: 'ERR_SOCKET_BAD_PORT' });
  });
});
