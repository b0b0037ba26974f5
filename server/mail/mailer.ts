import type { Transporter } from 'nodemailer';
import { getConfig, type Config } from '../config';

// E-mail to buyers through the SMTP server of SMTP_URL (nodemailer). Mail is on only when both
// SMTP_URL and MAIL_FROM are set; the portal's ownership changes need it (docs/selling.md).
// nodemailer is loaded with the first mail sent: most processes never send one.

export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
}

export interface MailSettings {
  url: string;
  from: string;
}

/** The SMTP settings, or null when mail is off. */
export function mailSettings(config: Config = getConfig()): MailSettings | null {
  if (!config.SMTP_URL || !config.MAIL_FROM) return null;
  return { url: config.SMTP_URL, from: config.MAIL_FROM };
}

export const mailOn = (): boolean => mailSettings() !== null;

let cached: { url: string; transport: Transporter } | undefined;

async function transportFor(url: string): Promise<Transporter> {
  const { createTransport } = await import('nodemailer');
  if (cached?.url !== url) {
    // A slow or silent server fails the send within seconds instead of holding the request.
    cached = { url, transport: createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 20_000 }) };
  }
  return cached.transport;
}

/** Sends one plain-text e-mail; throws when mail is off or the server refuses it. */
export async function sendMail(mail: OutgoingMail): Promise<void> {
  const settings = mailSettings();
  if (!settings) throw new Error('mail is off: SMTP_URL and MAIL_FROM are not both set');
  await (await transportFor(settings.url)).sendMail({ from: settings.from, to: mail.to, subject: mail.subject, text: mail.text });
}
