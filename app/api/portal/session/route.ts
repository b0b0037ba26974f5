import { signInRoute, signOutRoute } from '@wgs/server/next';

export const dynamic = 'force-dynamic';

export { signInRoute as POST, signOutRoute as DELETE };
