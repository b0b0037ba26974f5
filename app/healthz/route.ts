// Liveness for load balancers and tests; also the "trivial route handler" of `npm run bench`.
export const dynamic = 'force-dynamic';

export function GET() {
  return Response.json({ status: 'ok' }, { headers: { 'Cache-Control': 'no-store' } });
}
