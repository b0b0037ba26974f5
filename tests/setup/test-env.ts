import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { cloneTemplate, setTestDatabaseUrl } from './test-database';

// Every integration test file sees a database of its own and its own data dir for stored files,
// so files can run side by side (vitest runs each in a process of its own).
const database = await cloneTemplate(inject('testDatabases'), 'file');
setTestDatabaseUrl(database.url);
process.env.DATABASE_URL = database.url;
process.env.WGS_DATA_DIR ??= mkdtempSync(join(tmpdir(), 'wgs-files-'));
process.env.SIGNING_SECRET ??= 'test-signing-secret-0123456789abcdef0123456789';
process.env.PUBLIC_BASE_URL ??= 'http://127.0.0.1:3999';
process.env.RUN_WORKER = 'false';
process.env.LOG_FORMAT ??= 'off';
// The circuit breaker's state lives in the database, and test files reuse provider names: it is
// off unless a test turns it on (tests/integration/provider-fallbacks.test.ts).
process.env.PROVIDER_CIRCUIT_FAILURES ??= '0';
