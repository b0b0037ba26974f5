import { createCallerFactory, router } from './init';
import { auditRouter } from './routers/audit';
import { jobsRouter } from './routers/jobs';
import { keysRouter } from './routers/keys';
import { marginRouter } from './routers/margin';
import { operatorsRouter } from './routers/operators';
import { overviewRouter } from './routers/overview';
import { packagesRouter } from './routers/packages';
import { refusalsRouter } from './routers/refusals';
import { salesRouter } from './routers/sales';
import { providersRouter } from './routers/providers';
import { uploadsRouter } from './routers/uploads';
import { usageRouter } from './routers/usage';

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
  margin: marginRouter,
  operators: operatorsRouter,
  sales: salesRouter,
});

export type AppRouter = typeof appRouter;

export const createCaller = createCallerFactory(appRouter);
