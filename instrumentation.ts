// Next.js calls register() once when a server instance starts.
export async function register() {
  if (process.env.NEXT_RUNTIME !== 'nodejs' || !process.env.DATABASE_URL) return;
  const { startBackgroundTasks } = await import('./server/background');
  startBackgroundTasks();
}
