import { getConfig } from '../../config';
import { mailOn } from '../../mail/mailer';

// The portal's switch (PORTAL_ENABLED) and what it tells a customer about whom to ask.

export const portalEnabled = (): boolean => getConfig().PORTAL_ENABLED === 'true';

/** SUPPORT_CONTACT, or a plain description when the operator named none. */
export const supportContact = (): string => getConfig().SUPPORT_CONTACT ?? 'the operator of this service';

/** Whether ownership changes can be confirmed for a key: mail is on and the key has a buyer's e-mail. */
export const confirmationsAvailable = (buyerEmail: string | null): boolean => mailOn() && buyerEmail !== null;

/** b•••@example.com: enough for the buyer to recognise the address, not to learn it. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at < 1) return '•••';
  return `${email[0]}•••${email.slice(at)}`;
}
