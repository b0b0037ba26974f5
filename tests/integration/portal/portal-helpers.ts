import { randomBytes } from 'node:crypto';
import { resetConfigForTests } from '@/server/config';
import { getPrisma } from '@/server/db/client';
import { CLI_ACTOR } from '@/server/domain/actor';
import { issueKey } from '@/server/domain/keys/issue-key';
import { findPortalSession, signInWithKey } from '@/server/domain/portal/portal-session';
import { createPortalInnerContext } from '@/server/trpc/portal/portal-context';
import { createPortalCaller } from '@/server/trpc/portal/portal-router';
import { codeIn, startSmtpInbox, type SmtpInbox } from '../../helpers/smtp-inbox';
import { seedPackage, uniqueSlug } from '../trpc/helpers';

let addressCounter = 0;

/** A client address of its own (a 10.x address: counted by the failed-authentication limit). */
export const freshAddress = () => `10.77.${Math.floor(++addressCounter / 250)}.${addressCounter % 250}`;

/** A package of its own and an active key on it, with its secret and its buyer's e-mail (null: none). */
export async function keyOnFreshPackage(
  prefix = 'portal',
  quota = 100,
  email: string | null = `owner-${randomBytes(5).toString('hex')}@example.com`,
) {
  const slug = uniqueSlug(prefix);
  await seedPackage(slug, quota);
  const issued = await issueKey(getPrisma(), CLI_ACTOR, { packageSlug: slug });
  if (email) await getPrisma().apiKey.update({ where: { id: issued.id }, data: { buyerEmail: email } });
  return { slug, id: issued.id, secret: issued.key, email: email ?? '' };
}

/** Signs in with the secret as the portal's route does, and gives the token and a caller of its session. */
export async function portalSignIn(secret: string, address = freshAddress()) {
  const { token } = await signInWithKey(getPrisma(), { secret, address });
  const session = await findPortalSession(getPrisma(), token);
  if (!session) throw new Error('the new session is not live');
  return { token, session, caller: createPortalCaller(createPortalInnerContext(session, getPrisma(), 'http://portal.test', address)) };
}

/** E-mail on for the file: a real SMTP server on 127.0.0.1 that the product's nodemailer sends to. */
export async function turnMailOn(): Promise<SmtpInbox> {
  const inbox = await startSmtpInbox();
  process.env.SMTP_URL = inbox.url;
  process.env.MAIL_FROM = 'Portal tests <portal@example.com>';
  resetConfigForTests();
  return inbox;
}

export async function turnMailOff(inbox?: SmtpInbox): Promise<void> {
  delete process.env.SMTP_URL;
  delete process.env.MAIL_FROM;
  resetConfigForTests();
  await inbox?.close();
}

type PortalCaller = Awaited<ReturnType<typeof portalSignIn>>['caller'];

/** Asks for a change, reads the code the buyer was e-mailed and enters it: what confirmChange returns. */
export async function changeWithCode(
  caller: PortalCaller,
  inbox: SmtpInbox,
  email: string,
  input: Parameters<PortalCaller['requestChange']>[0],
) {
  const before = inbox.mailTo(email).length;
  await caller.requestChange(input);
  return caller.confirmChange({ code: codeIn(await inbox.waitForMail(email, before + 1)) });
}

/** A key rotation confirmed by e-mail: the new secret and prefix. */
export async function rotateWithCode(caller: PortalCaller, inbox: SmtpInbox, email: string) {
  const result = await changeWithCode(caller, inbox, email, { action: 'rotate_key' });
  if (result.action !== 'rotate_key') throw new Error('not a rotation');
  return result;
}

/** A webhook change confirmed by e-mail: its URL and new signing secret. */
export async function webhookWithCode(
  caller: PortalCaller,
  inbox: SmtpInbox,
  email: string,
  input: Parameters<PortalCaller['requestChange']>[0],
) {
  const result = await changeWithCode(caller, inbox, email, input);
  if (result.action !== 'set_webhook' && result.action !== 'rotate_webhook_secret') throw new Error('not a webhook change with a secret');
  return result;
}
