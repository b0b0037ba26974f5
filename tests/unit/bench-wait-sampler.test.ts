import { describe, expect, it } from 'vitest';
import { waitNote } from '../../scripts/bench/wait-sampler';

describe('the wait sampler note', () => {
  it('gives each wait or vacuum phase its share of the samples, most first, leaving out those under 1%', () => {
    const seen = new Map([
      ['IO:WalSync', 120],
      ['Lock:transactionid', 300],
      ['vacuum rate_windows: truncating heap', 8],
      ['LWLock:BufferContent', 4],
    ]);
    expect(waitNote({ samples: 800, seen })).toBe(
      '800 samples: Lock:transactionid 38%, IO:WalSync 15%, vacuum rate_windows: truncating heap 1%',
    );
  });

  it('says so when nothing was waiting', () => {
    expect(waitNote({ samples: 200, seen: new Map() })).toBe('200 samples: none waiting');
    expect(waitNote({ samples: 0, seen: new Map() })).toBe('0 samples: none waiting');
  });
});
