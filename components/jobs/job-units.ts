import { formatNumber } from '../ui/format';

/** A job's units as its key sees them: held while it runs, then charged (none when it failed or was cancelled in time). */
export function jobUnits(job: { status: string; units: number; charged_units: number }): string {
  if (job.status === 'submitted' || job.status === 'running') return `${formatNumber(job.units)} held`;
  if (job.charged_units === job.units) return `${formatNumber(job.units)} charged`;
  return `${formatNumber(job.charged_units)} charged (${formatNumber(job.units)} returned)`;
}
