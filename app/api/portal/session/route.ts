import { signInRoute, signOutRoute } from '@/server/http/portal/portal-session-route';

export const dynamic = 'force-dynamic';

export { signInRoute as POST, signOutRoute as DELETE };
