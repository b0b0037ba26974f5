// Next.js calls register() once when a server instance starts, and serves no request before
// it returns.
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || !process.env.DATABASE_URL) return;
  if (process.env.NEXT_PHASE === 'phase-production-build') return;
  const { startInstance } = await import('./server/instance/start-instance');
  await startInstance();
}
