import { randomInt } from 'node:crypto';
import { Command, InvalidArgumentError } from 'commander';

// What a run of `npm run chaos` is asked for. The seed decides everything the run injects and
// sends (scripts/chaos/random.ts); without one a seed is drawn and printed, so any run can be
// repeated with `--seed`.

export interface ChaosOptions {
  seed: number;
  /** Minutes of traffic (startup, quiescing and the check come on top). */
  minutes: number;
  /** Clients sending at once. */
  concurrency: number;
  /** Where the JSON report goes (default: .data/chaos/). */
  reportPath?: string;
}

const integer = (name: string, min: number, max: number) => (value: string) => {
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max)
    throw new InvalidArgumentError(`${name} is a whole number from ${min} to ${max}.`);
  return number;
};

function minutes(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0.1 || number > 600) throw new InvalidArgumentError('minutes is a number from 0.1 to 600.');
  return number;
}

export function parseOptions(argv: string[]): ChaosOptions {
  const command = new Command('chaos')
    .description('Seeded fault injection against the running product, then an independent check of the books.')
    .option('--seed <n>', 'the seed that decides every call and fault (default: a random one, printed)', integer('seed', 0, 2 ** 31 - 1))
    .option('--minutes <m>', 'minutes of traffic', minutes, 1)
    .option('--concurrency <c>', 'clients sending at once', integer('concurrency', 1, 64), 4)
    .option('--report <path>', 'where to write the JSON report')
    .exitOverride();
  command.parse(argv, { from: 'user' });
  const options = command.opts<{ seed?: number; minutes: number; concurrency: number; report?: string }>();
  return {
    seed: options.seed ?? randomInt(0, 2 ** 31 - 1),
    minutes: options.minutes,
    concurrency: options.concurrency,
    reportPath: options.report,
  };
}
