import { signInRoute, signOutRoute } from '@/server/auth/portal-session-route';

export const dynamic = 'force-dynamic';

export { signInRoute as POST, signOutRoute as DELETE };
