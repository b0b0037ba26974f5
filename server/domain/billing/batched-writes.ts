import pg, { type QueryConfig } from 'pg';
import { metricsOn, observeBatchSize, writeMeter, type Series } from '../../observability/metrics';
import { batchCall, type BatchedStatement } from './batch-function';
import { GroupCommit } from './group-commit';

// The paid path's two statements, written in batches across concurrent calls (group-commit.ts):
// the rate point, claim and hold on the provisional pool, the capture on the durable one. A batch
// is one statement and one commit; a call alone is the statement itself, as before. Each batch
// runs its calls ordered by API key (arrival order within a key), so two instances' batches lock
// keys in the same order and cannot deadlock on them (but for a key taken over while its request
// captures: docs/billing.md); a batch refused as a whole is written again call by call
// (group-commit.ts), and a call alone that PostgreSQL refused as a deadlock is written again.

export const RESERVE_PAID: BatchedStatement = { statementName: 'wgs-reserve-paid', functionName: 'wgs_batch_reserve_paid' };
export const CAPTURE_HOLD: BatchedStatement = { statementName: 'wgs-capture-hold', functionName: 'wgs_batch_capture_hold' };

/** The most calls one batch writes. */
const MAX_BATCH = 64;

/** How often a call alone is written when PostgreSQL refuses it as a deadlock or a serialization failure. */
const WRITE_ATTEMPTS = 3;

/** PostgreSQL rolled the statement back for a conflict with another transaction: written again, it may pass. */
const isConflict = (error: unknown) => error instanceof pg.DatabaseError && (error.code === '40P01' || error.code === '40001');

export interface BatchedCall {
  /** Orders the batch: every call's locks are its key's rows (and rows of its own). */
  apiKeyId: string;
  statement: QueryConfig;
}

type Row = Record<string, unknown>;

/** Each pool's writer of each statement, and the histogram series its calls' waits go to. */
const writers = new WeakMap<pg.Pool, Map<string, { batcher: GroupCommit<BatchedCall, Row>; meter: Series }>>();

/** Writes `call` (a statement of `batched`) with the calls of other requests in flight; its row. */
export function writeBatched<T>(pool: pg.Pool, batched: BatchedStatement, call: BatchedCall): Promise<T> {
  let byStatement = writers.get(pool);
  if (!byStatement) writers.set(pool, (byStatement = new Map()));
  let writer = byStatement.get(batched.statementName);
  if (!writer) {
    writer = { batcher: groupCommit(pool, batched), meter: writeMeter(batched.functionName) };
    byStatement.set(batched.statementName, writer);
  }
  const { batcher, meter } = writer;
  if (!metricsOn()) return batcher.submit(call) as Promise<T>;
  // Timed from here: a call that waits behind a slow statement of its kind shows its wait.
  const submitted = performance.now();
  return batcher.submit(call).then((row) => {
    meter.observe((performance.now() - submitted) / 1000);
    return row as T;
  });
}

function groupCommit(pool: pg.Pool, batched: BatchedStatement): GroupCommit<BatchedCall, Row> {
  return new GroupCommit<BatchedCall, Row>({
    maxBatch: MAX_BATCH,
    async writeOne(call) {
      for (let attempt = 1; ; attempt++) {
        try {
          return (await pool.query<Row>(call.statement)).rows[0]!;
        } catch (error) {
          if (attempt >= WRITE_ATTEMPTS || !isConflict(error)) throw error;
        }
      }
    },
    async writeBatch(calls) {
      const order = calls.map((_, index) => index).sort((a, b) => compareKeys(calls[a]!.apiKeyId, calls[b]!.apiKeyId) || a - b);
      const { rows } = await pool.query<{ row: Row }>(
        batchCall(
          batched,
          order.map((index) => calls[index]!.statement),
        ),
      );
      const answers = new Array<Row>(calls.length);
      order.forEach((callIndex, rowIndex) => (answers[callIndex] = rows[rowIndex]!.row));
      return answers;
    },
    // The database answered with an error: the batch's transaction was rolled back.
    rolledBack: (error) => error instanceof pg.DatabaseError,
    onBatch: (size) => observeBatchSize(batched.functionName, size),
  });
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
