import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import { vi } from 'vitest';

// DNS that answers chosen IPv4 addresses for chosen names (a public-looking name that resolves
// into this machine's network), as the outbound doors' lookup asks it; every other name goes to
// the real resolver. vi.restoreAllMocks() and syncBuiltinESMExports() take it back.

/** Answers `answers[name]` for those names from now on; the object may gain names later. */
export function answerDns(answers: Record<string, string>): void {
  const real = dns.lookup;
  vi.spyOn(dns, 'lookup').mockImplementation(((hostname: string, options: unknown, callback: unknown) => {
    const done = (typeof options === 'function' ? options : callback) as (...args: unknown[]) => void;
    const address = answers[hostname];
    if (!address) return (real as (...args: unknown[]) => void)(hostname, options, callback);
    if (typeof options === 'object' && options !== null && (options as { all?: boolean }).all) return done(null, [{ address, family: 4 }]);
    done(null, address, 4);
  }) as never);
  syncBuiltinESMExports(); // code that imported { lookup } sees it too
}

/** The real resolver again. */
export function restoreDns(): void {
  vi.restoreAllMocks();
  syncBuiltinESMExports();
}
