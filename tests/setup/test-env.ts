import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';

// Every integration test file sees the test database and its own data dir for stored files.
process.env.DATABASE_URL = inject('databaseUrl');
process.env.WGS_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'wgs-files-'));
process.env.SIGNING_SECRET ??= 'test-signing-secret-0123456789abcdef0123456789';
process.env.PUBLIC_BASE_URL ??= 'http://127.0.0.1:3999';
process.env.RUN_WORKER = 'false';
process.env.LOG_FORMAT ??= 'off';
// The circuit breaker's state is shared through the database, and test files reuse provider
// names: it is off unless a test turns it on (tests/integration/provider-fallbacks.test.ts).
process.env.PROVIDER_CIRCUIT_FAILURES ??= '0';
