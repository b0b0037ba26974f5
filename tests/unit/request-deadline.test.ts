import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestDeadline } from '@/server/http/request-deadline';

afterEach(() => vi.useRealTimers());

describe('requestDeadline', () => {
  it('aborts with a TimeoutError once the time is up', () => {
    vi.useFakeTimers();
    const deadline = requestDeadline(1000);
    vi.advanceTimersByTime(999);
    expect(deadline.signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it('never aborts once cleared, and leaves no timer behind', () => {
    vi.useFakeTimers();
    const deadline = requestDeadline(1000);
    expect(vi.getTimerCount()).toBe(1);
    deadline.clear();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(deadline.signal.aborted).toBe(false);
  });
});
