import 'next-auth';
import 'next-auth/jwt';
import type { OperatorRole } from '../contract/dashboard/roles';

declare module 'next-auth' {
  interface Session {
    /** The operator_sessions row this sign-in created (sign-out ends it). */
    sessionId?: string;
    /** The database was away: the session could not be checked (auth/session.ts answers 503, the cookie is kept). */
    storeUnavailable?: boolean;
    user?: {
      id?: string;
      name?: string | null;
      email?: string | null;
      image?: string | null;
      /** Read from the database on every request (auth-options.ts), never from the cookie. */
      role?: OperatorRole;
    };
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    operatorId?: string;
    signedInAt?: number;
    sessionId?: string;
  }
}
