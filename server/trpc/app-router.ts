import { createCallerFactory, router } from './init';
import { auditRouter, jobsRouter, overviewRouter, uploadsRouter, usageRouter } from './routers/activity';
import { keysRouter } from './routers/keys';
import { packagesRouter } from './routers/packages';
import { refusalsRouter } from './routers/refusals';
import { providersRouter } from './routers/providers';

export const appRouter = router({
  overview: overviewRouter,
  packages: packagesRouter,
  providers: providersRouter,
  keys: keysRouter,
  usage: usageRouter,
  jobs: jobsRouter,
  uploads: uploadsRouter,
  audit: auditRouter,
  refusals: refusalsRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
