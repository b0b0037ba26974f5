import { describe, expect, it } from 'vitest';
import { listeningUrl } from '@/server/config/listening-url';

describe('the address a start line names', () => {
  it('is localhost for every interface, else the address the server listens on', () => {
    expect(listeningUrl('0.0.0.0', 3000)).toBe('http://localhost:3000');
    expect(listeningUrl('::', 3000)).toBe('http://localhost:3000');
    expect(listeningUrl('192.0.2.2', 4412)).toBe('http://192.0.2.2:4412');
    expect(listeningUrl('fd00::2', 9464, '/metrics')).toBe('http://[fd00::2]:9464/metrics');
  });
});
