import type { History } from '../history';
import type { Books } from './books';
import type { Links } from './links';

// One named promise of the books, checked against what the run saw.

export interface Violation {
  /** What broke it: a key, a call, a job, a checkout. */
  subject: string;
  message: string;
}

export interface Invariant {
  name: string;
  /** The promise, in one line. */
  description: string;
  /** Each subject it looked at, and what is wrong with each that breaks it. */
  check(history: History, books: Books, links: Links): { checked: number; violations: Violation[] };
}
