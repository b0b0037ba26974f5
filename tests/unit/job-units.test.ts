import { describe, expect, it } from 'vitest';
import { jobUnits } from '@/components/jobs/job-units';
import { chargedUnits } from '@/server/domain/job-row';

// The dashboard's jobs showed a failed job's price as its units (20) where the API says
// usage.charged_units 0 (outside audit): the page now says what the key was charged.

const job = (status: string, chargedOnCancel = false) => {
  const charged = chargedUnits({ status: status as 'failed', units: 20, charged_on_cancel: chargedOnCancel });
  return { status, units: 20, charged_units: charged };
};

describe('a job’s units on the dashboard', () => {
  it('are held while it runs, charged when it succeeded, and returned when it failed or was cancelled in time', () => {
    expect(jobUnits(job('submitted'))).toBe('20 held');
    expect(jobUnits(job('running'))).toBe('20 held');
    expect(jobUnits(job('succeeded'))).toBe('20 charged');
    expect(jobUnits(job('failed'))).toBe('0 charged (20 returned)');
    expect(jobUnits(job('cancelled'))).toBe('0 charged (20 returned)');
    expect(jobUnits(job('cancelled', true))).toBe('20 charged');
  });
});
