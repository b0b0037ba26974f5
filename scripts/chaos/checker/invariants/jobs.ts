import { parseJson } from '../answers';
import type { BookJob, BookUsage } from '../books';
import type { Invariant, Violation } from '../invariant';

// A video job is charged by the rule of the state it ended in: succeeded, or cancelled while
// running, captures its units with one usage event; failed, or cancelled before it ran, returns
// them; none is left open. What its client was last told (the cancel's answer, the job's status
// and charged units) is what the books say.

function charged(job: BookJob): boolean | undefined {
  if (job.status === 'succeeded') return true;
  if (job.status === 'cancelled') return job.chargedOnCancel;
  if (job.status === 'failed') return false;
  return undefined;
}

function bookProblems(job: BookJob, events: BookUsage[]): string[] {
  const expected = charged(job);
  if (expected === undefined) return [`still ${job.status} after the run quiesced`];
  const charges = events.filter((event) => event.outcome === 'succeeded');
  const hold = expected ? 'captured' : 'released';
  const problems: string[] = [];
  if (job.holdStatus !== hold)
    problems.push(`${job.status}${job.chargedOnCancel ? ' (charged on cancel)' : ''} but its hold is ${job.holdStatus}`);
  if (charges.length !== (expected ? 1 : 0)) problems.push(`${job.status} with ${charges.length} succeeded usage events`);
  if (expected && charges.some((event) => event.units !== job.units)) problems.push(`charged other than its ${job.units} units`);
  return problems;
}

export const jobsChargedByState: Invariant = {
  name: 'jobs-charged-by-state',
  description: 'each video job charged by the rule of its final state, as its client was told',
  check(history, books) {
    const violations: Violation[] = [];
    const ours = new Set(history.keys.map((key) => key.id));
    const jobs = books.jobs.filter((job) => ours.has(job.keyId));
    for (const job of jobs) {
      const events = books.usage.filter((event) => event.jobId === job.id);
      violations.push(...bookProblems(job, events).map((message) => ({ subject: `job ${job.id}`, message })));
    }
    for (const call of history.calls.filter((c) => c.job)) {
      const seen = call.job!;
      const job = books.jobs.find((j) => j.id === seen.id);
      const subject = `job ${seen.id}`;
      if (!job) {
        violations.push({ subject, message: `answered to call ${call.id} but not in the database` });
        continue;
      }
      const isCharged = charged(job);
      if (seen.status && ['succeeded', 'failed', 'cancelled'].includes(seen.status) && seen.status !== job.status)
        violations.push({ subject, message: `its client was told ${seen.status}, the books say ${job.status}` });
      if (seen.chargedUnits !== undefined && isCharged !== undefined && seen.chargedUnits !== (isCharged ? job.units : 0))
        violations.push({
          subject,
          message: `its client was told ${seen.chargedUnits} units charged, the books ${isCharged ? job.units : 0}`,
        });
      const cancel = parseJson(seen.cancel?.body)?.usage as { charged_units?: number } | undefined;
      if (
        seen.cancel?.status === 200 &&
        typeof cancel?.charged_units === 'number' &&
        isCharged !== undefined &&
        cancel.charged_units !== (isCharged ? job.units : 0)
      )
        violations.push({
          subject,
          message: `its cancel answered ${cancel.charged_units} units charged, the books ${isCharged ? job.units : 0}`,
        });
    }
    return { checked: jobs.length, violations };
  },
};
