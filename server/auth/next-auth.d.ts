import 'next-auth';
import 'next-auth/jwt';

declare module 'next-auth' {
  interface Session {
    /** The operator_sessions row this sign-in created (sign-out ends it). */
    sessionId?: string;
    user?: { id?: string; name?: string | null; email?: string | null; image?: string | null };
  }
}

declare module 'next-auth/jwt' {
  interface JWT {
    operatorId?: string;
    signedInAt?: number;
    sessionId?: string;
  }
}
