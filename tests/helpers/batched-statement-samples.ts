import { rateClaimHoldStatement } from '@/server/domain/billing/reserve-statements';
import { captureStatement } from '@/server/domain/billing/unit-holds';

// One call of each batched statement of the paid path (billing/batched-writes.ts), for the tests
// that check their batch functions and the migration that defines them.

const KEY = '00000000-0000-4000-8000-000000000001';

export const reserveSample = () =>
  rateClaimHoldStatement({
    rate: { key: `rpm:${KEY}`, limit: 60, windowSeconds: 60 },
    claim: {
      recordId: '00000000-0000-4000-8000-000000000002',
      scope: { apiKeyId: KEY, method: 'POST', path: '/v1/text/generate', key: 'k' },
      fingerprint: 'f',
      leaseSeconds: 120,
      retentionHours: 24,
    },
    hold: {
      apiKeyId: KEY,
      holdId: '00000000-0000-4000-8000-000000000003',
      units: 1,
      operation: 'text.generate',
      requestId: 'req_1',
      concurrency: 4,
      leaseSeconds: 300,
      budget: null,
      expectedCost: null,
      engines: ['local'],
      surface: 'v1',
    },
  });

export const captureSample = () =>
  captureStatement(
    '00000000-0000-4000-8000-000000000003',
    {
      usageEventId: '00000000-0000-4000-8000-000000000004',
      packageVersionId: '00000000-0000-4000-8000-000000000005',
      operation: 'text.generate',
      engine: 'local',
      requestId: 'req_1',
      durationMs: 3,
      enginesTried: ['local', 'a "quoted", {braced} \\ engine'],
      metering: '{"characters": 10}',
    },
    { recordId: '00000000-0000-4000-8000-000000000002', status: 200, body: '{"id":"x"}' },
  );
