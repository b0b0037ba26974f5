import type { NextAuthOptions } from 'next-auth';
import credentialsProvider from 'next-auth/providers/credentials';
import gitHubProvider from 'next-auth/providers/github';
import googleProvider from 'next-auth/providers/google';
import { authorizeOperator, findOperatorByEmail, SignInRateLimited } from './authorize-operator';
import { clientAddress } from './client-address';
import { acceptedConnection } from './connection';
import { isVerifiedOAuthEmail } from './verified-email';
import { getConfig } from '../config';
import { isUuid } from '../domain/uuid';
import { isStoreUnavailable } from '../db/store-unavailable';
import type { OperatorRole } from '../contract/dashboard/roles';
import { endOperatorSession, liveSessionRole, startOperatorSession } from './operator-sessions';

/**
 * A CommonJS module's default export (next-auth's providers): a bundler hands over its `default`,
 * Node's ESM loader (the server package runs unbundled) the module object holding it.
 */
function defaultExport<T>(module: T): T {
  return (module as { default?: T }).default ?? module;
}

const CredentialsProvider = defaultExport(credentialsProvider);
const GitHubProvider = defaultExport(gitHubProvider);
const GoogleProvider = defaultExport(googleProvider);

/** Sessions end this long after sign-in (default 8 hours); there is no sliding renewal past it. */
export const SESSION_MAX_AGE_SECONDS = getConfig().SESSION_MAX_AGE_SECONDS;

export const RATE_LIMITED_ERROR = 'RateLimited';

/** OAuth providers are offered only when their credentials are configured. */
export function oauthProviders() {
  const providers = [];
  const { GITHUB_ID, GITHUB_SECRET, GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET } = getConfig();
  if (GITHUB_ID && GITHUB_SECRET) providers.push(GitHubProvider({ clientId: GITHUB_ID, clientSecret: GITHUB_SECRET }));
  if (GOOGLE_CLIENT_ID && GOOGLE_CLIENT_SECRET) {
    providers.push(GoogleProvider({ clientId: GOOGLE_CLIENT_ID, clientSecret: GOOGLE_CLIENT_SECRET }));
  }
  return providers;
}

/**
 * next-auth's errors, with one exception: a session cookie that does not decode (anyone can send
 * one, on every request) is one line, not a stack trace each time; the visitor is simply signed out.
 */
const authLogger: NextAuthOptions['logger'] = {
  error(code, metadata) {
    if (code === 'JWT_SESSION_ERROR') console.warn('[auth] a session cookie that does not decode was ignored');
    else console.error(`[next-auth][error][${code}]`, metadata);
  },
};

export const authOptions: NextAuthOptions = {
  logger: authLogger,
  session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS, updateAge: SESSION_MAX_AGE_SECONDS },
  jwt: { maxAge: SESSION_MAX_AGE_SECONDS },
  pages: { signIn: '/signin', error: '/signin' },
  providers: [
    CredentialsProvider({
      id: 'credentials',
      name: 'E-mail and password',
      credentials: { email: { label: 'E-mail', type: 'email' }, password: { label: 'Password', type: 'password' } },
      async authorize(credentials, req) {
        try {
          const headers = new Headers(req?.headers as Record<string, string> | undefined);
          return await authorizeOperator(credentials ?? {}, clientAddress(acceptedConnection(), headers));
        } catch (error) {
          // next-auth passes a thrown message to the sign-in page as ?error=...
          if (error instanceof SignInRateLimited) throw new Error(RATE_LIMITED_ERROR);
          throw error;
        }
      },
    }),
    ...oauthProviders(),
  ],
  callbacks: {
    async signIn({ user, account, profile }) {
      if (!account || account.provider === 'credentials') return Boolean(user);
      if (!user.email) return false;
      const verified = await isVerifiedOAuthEmail({
        provider: account.provider,
        email: user.email,
        profile,
        accessToken: account.access_token,
      });
      return verified && Boolean(await findOperatorByEmail(user.email));
    },
    async jwt({ token, user, account }) {
      if (user && account) {
        const operator = account.provider === 'credentials' ? user : await findOperatorByEmail(user.email ?? '');
        if (operator) {
          token.operatorId = operator.id;
          token.email = operator.email;
          token.signedInAt = Date.now();
          token.sessionId = await startOperatorSession(operator.id, SESSION_MAX_AGE_SECONDS);
        }
      }
      return token;
    },
    async session({ session, token }) {
      // The JWT is re-issued on use; signedInAt keeps the session's end fixed at sign-in + max age.
      // A JWT also outlives a change in the database: a session signed out, or an operator
      // disabled, since the cookie was issued names no one (here, for pages, tRPC and /api/auth/session alike).
      const { operatorId, sessionId, signedInAt } = token;
      const fresh = typeof signedInAt === 'number' && Date.now() - signedInAt < SESSION_MAX_AGE_SECONDS * 1000;
      const named = fresh && typeof operatorId === 'string' && typeof sessionId === 'string' && isUuid(operatorId) && isUuid(sessionId);
      let role: OperatorRole | null = null;
      try {
        role = named ? await liveSessionRole(sessionId, operatorId) : null;
      } catch (error) {
        // Thrown, next-auth would clear the cookie: the database's outage would sign everyone out.
        if (isStoreUnavailable(error)) return { expires: session.expires, storeUnavailable: true };
        throw error;
      }
      if (!role) return { expires: session.expires };
      return { ...session, user: { ...session.user, id: operatorId, email: token.email ?? session.user?.email, role }, sessionId };
    },
    // next-auth's own redirect throws on a URL it cannot parse (a planted callback-url cookie made
    // every dashboard request a 500); anything but this site's own URLs goes to its root.
    redirect({ url, baseUrl }) {
      if (url.startsWith('/') && !url.startsWith('//')) return `${baseUrl}${url}`;
      try {
        return new URL(url).origin === baseUrl ? url : baseUrl;
      } catch {
        return baseUrl;
      }
    },
  },
  events: {
    // Sign-out ends the session on the server too: a copy of the cookie stops working.
    async signOut({ token }) {
      if (typeof token?.sessionId === 'string') await endOperatorSession(token.sessionId);
    },
  },
};

/**
 * The options for one request: its cookies are Secure (and named __Secure-/__Host-) whenever it
 * came over https (a trusted proxy's X-Forwarded-Proto), not only when NEXTAUTH_URL is https.
 * The secret is the configuration's (`npm start` settles a generated one when it is unset).
 */
export function authOptionsFor(secure: boolean): NextAuthOptions {
  return { ...authOptions, secret: getConfig().NEXTAUTH_SECRET, useSecureCookies: secure };
}
