// Metrics and counts are labelled by route, never by raw path: ids in a path would make one
// series per job or upload, and unknown paths one per guess.

const OPERATION_ROUTES: Record<string, string> = {
  '/v1/text/generate': 'text.generate',
  '/v1/code/generate': 'code.generate',
  '/v1/images/generate': 'images.generate',
  '/v1/videos/generate': 'videos.generate',
  '/v1/audio/speech': 'audio.speech',
  '/v1/audio/transcribe': 'audio.transcribe',
};

const ONE_SEGMENT = /^[^/]+$/;

/** The route template of a /v1 path (trailing slashes ignored), or `unmatched`. */
export function routeLabel(pathname: string): string {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (OPERATION_ROUTES[path] || path === '/v1/uploads' || path === '/v1/openapi.json') return path;
  const parts = path.split('/');
  if (parts.length === 4 && parts[2] === 'jobs' && ONE_SEGMENT.test(parts[3]!)) return '/v1/jobs/{job_id}';
  if (parts.length === 5 && parts[2] === 'uploads' && parts[4] === 'complete') return '/v1/uploads/{upload_id}/complete';
  return 'unmatched';
}

/** What the dashboard calls the request: the operation a route sells, else the route's own name. */
export function operationOfRoute(route: string): string {
  const operation = OPERATION_ROUTES[route];
  if (operation) return operation;
  switch (route) {
    case '/v1/uploads':
      return 'uploads.create';
    case '/v1/uploads/{upload_id}/complete':
      return 'uploads.complete';
    case '/v1/jobs/{job_id}':
      return 'jobs.get';
    case '/v1/openapi.json':
      return 'openapi';
    default:
      return 'unknown';
  }
}
