import { describe, expect, it } from 'vitest';
import { toErrorResponse } from '@/server/http/responses';

// A database that cannot be reached fails closed and retryable (503 with Retry-After); anything
// else unexpected is the generic 500.

const errorWith = (message: string, fields: Record<string, unknown>) => Object.assign(new Error(message), fields);
/** A PrismaClientKnownRequestError's fields over the driver adapter's error `cause`. */
const prismaError = (code: string, cause: Record<string, unknown>) =>
  errorWith('Invalid `prisma.upload.findUnique()` invocation', { code, meta: { modelName: 'Upload', driverAdapterError: { cause } } });

describe('toErrorResponse for failures that are not ApiErrors', () => {
  it.each([
    ['TCP refused', errorWith('connect ECONNREFUSED 127.0.0.1:5432', { code: 'ECONNREFUSED', syscall: 'connect' })],
    ['Unix socket missing', errorWith('connect ENOENT /tmp/pg/.s.PGSQL.5432', { code: 'ENOENT', syscall: 'connect' })],
    ['host unreachable', errorWith('connect EHOSTUNREACH 10.0.0.9:5432', { code: 'EHOSTUNREACH', syscall: 'connect' })],
    ['a query never answered', new Error('Query read timeout')],
    ['no free connection in time', new Error('timeout exceeded when trying to connect')],
    ['server shutting down', errorWith('terminating connection due to administrator command', { code: '57P01' })],
    // What Prisma's driver adapter (adapter-pg) throws for the same failures, as logged by the chaos runs.
    ['server shutting down, through Prisma', prismaError('P2039', { kind: 'postgres', code: '57P01', severity: 'FATAL' })],
    ['no database server, through Prisma', prismaError('P1001', { kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 5432 })],
    ['a connection reset, through Prisma', prismaError('P2039', { kind: 'ConnectionClosed' })],
    // A deadlock (40P01) or serialization failure (40001) rolled back: adapter-pg names it by kind only, Prisma raises P2034.
    ['a deadlock, through Prisma', prismaError('P2034', { kind: 'TransactionWriteConflict' })],
    ['a deadlock, through Prisma, under another code', prismaError('P2039', { kind: 'TransactionWriteConflict' })],
    ['a deadlock, through pg', errorWith('deadlock detected', { code: '40P01' })],
  ])('%s is 503 with Retry-After', async (_, error) => {
    const response = toErrorResponse(error, 'req_000000000000000000000000');
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect((await response.json()).error.code).toBe('provider_unavailable');
  });

  it('a Prisma error that is no outage (a constraint) is a 500', () => {
    const error = prismaError('P2039', { kind: 'UniqueConstraintViolation', constraint: { fields: ['id'] } });
    expect(toErrorResponse(error, 'req_000000000000000000000000').status).toBe(500);
  });

  it('a stored file that is missing (ENOENT from open) is a 500, not an outage', async () => {
    const response = toErrorResponse(
      errorWith("ENOENT: no such file or directory, open '/data/x'", { code: 'ENOENT', syscall: 'open' }),
      'req_000000000000000000000000',
    );
    expect(response.status).toBe(500);
    expect(response.headers.get('retry-after')).toBeNull();
    expect((await response.json()).error).toEqual({
      code: 'internal_error',
      message: expect.any(String),
      request_id: 'req_000000000000000000000000',
    });
  });
});
