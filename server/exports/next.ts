// `@wgs/server/next`: what Next's pages, route handlers, proxy.ts and instrumentation.ts take from
// the server. Next loads this package from node_modules as it is (serverExternalPackages), so they
// share every module with `npm start`'s server in the same process: one configuration, one
// database pool, one failed-authentication count, one metrics registry. A page or route that
// needs more of the server adds it here (app/ imports the server only through this package, but
// for server/contract's values and types).
export { authOptionsFor, oauthProviders } from '../auth/auth-options';
export { isParseableCallbackUrl } from '../auth/callback-url';
export { cameOverHttps } from '../auth/forwarded';
export { safeCallbackPath, signInPathForThisRequest } from '../auth/request-path';
export { getConfig } from '../config';
export { isAuditCursor } from '../domain/audit/list-audit';
export { OPERATIONS } from '../domain/operations';
export { engineNamesOf } from '../domain/engine-names';
export { versionToDefinition } from '../domain/packages/list-packages';
export { portalEnabled } from '../domain/portal/portal-settings';
export { testOperationOf } from '../domain/providers/provider-test-call';
export { JOB_STATUSES } from '../domain/reports/jobs';
export { UPLOAD_STATUSES } from '../domain/reports/uploads';
export { dashboardPolicy, hashedPolicy, newNonce, STRICT_TRANSPORT_SECURITY } from '../http/content-security-policy';
export { pageOperatorSession } from '../http/page-operator-session';
export { noteStoreUnavailable } from '../http/page-answer';
export { portalOffResponse } from '../http/portal/portal-off';
export { signInRoute, signOutRoute } from '../http/portal/portal-session-route';
export { routeMethods } from '../http/route-methods';
export { apiBaseUrls, type ApiBaseUrls } from '../http/api-base-urls';
export { cataloguePage, successPage } from '../http/sales/buy-pages';
export { handleCheckoutStart } from '../http/sales/checkout-start';
export { handleStripeWebhook } from '../http/sales/stripe-webhook';
export { crossSiteRefusal } from '../http/same-origin';
export { csvExportResponse } from '../http/csv-export';
export { outputUrlMethods } from '../http/serve-signed-object';
export { uploadUrlMethods } from '../http/upload-put';
export { startInstance } from '../instance/start-instance';
export { serveMetrics } from '../observability/metrics-endpoint';
export { startTracing } from '../observability/tracing';
export { appRouter } from '../trpc/app-router';
export { createRequestContext } from '../trpc/context';
export { portalCaller, topUpReturnOf } from '../trpc/portal/portal-caller';
export { createPortalRequestContext } from '../trpc/portal/portal-context';
export { portalRouter } from '../trpc/portal/portal-router';
export { dashboardCallerOf, orNotFound, recordTitle } from '../trpc/server-caller';
export { trpcEndpoint } from './trpc-endpoint';
