// OAuth sign-in lets in only an e-mail address the identity provider says its user has verified:
// an account that merely typed an operator's address into its profile is not that operator.

const GITHUB_EMAILS_URL = 'https://api.github.com/user/emails';

type Fetch = (url: string, init: { headers: Record<string, string>; signal: AbortSignal }) => Promise<Response>;

interface GitHubEmail {
  email?: unknown;
  verified?: unknown;
}

/**
 * Google's profile carries `email_verified`; GitHub's does not, so its list of the user's
 * addresses is read with the sign-in's access token (the `user:email` scope next-auth asks for).
 * Any other provider, or any doubt, is a refusal.
 */
export async function isVerifiedOAuthEmail(
  input: { provider: string; email: string; profile?: unknown; accessToken?: string },
  fetchEmails: Fetch = fetch,
): Promise<boolean> {
  const email = input.email.trim().toLowerCase();
  if (input.provider === 'google') {
    const profile = input.profile as { email?: unknown; email_verified?: unknown } | undefined;
    return profile?.email_verified === true && typeof profile.email === 'string' && profile.email.toLowerCase() === email;
  }
  if (input.provider === 'github' && input.accessToken) {
    try {
      const response = await fetchEmails(GITHUB_EMAILS_URL, {
        headers: { Authorization: `Bearer ${input.accessToken}`, Accept: 'application/vnd.github+json', 'User-Agent': 'wgs-dashboard' },
        signal: AbortSignal.timeout(10_000),
      });
      if (!response.ok) return false;
      const emails = (await response.json()) as GitHubEmail[];
      return (
        Array.isArray(emails) &&
        emails.some((entry) => typeof entry.email === 'string' && entry.email.toLowerCase() === email && entry.verified === true)
      );
    } catch {
      return false;
    }
  }
  return false;
}
