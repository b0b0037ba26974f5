import type { AddressInfo } from 'node:net';
import { simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

// A real SMTP server on 127.0.0.1 (smtp-server) that keeps every message it is given, parsed
// (mailparser): what the product's nodemailer sends, read as the buyer's mailbox would.

export interface ReceivedMail {
  to: string[];
  from: string;
  subject: string;
  text: string;
}

export type SmtpInbox = Awaited<ReturnType<typeof startSmtpInbox>>;

/** `refuse`: the server answers every message 550 (a mail server that does not take it). */
export async function startSmtpInbox(options: { port?: number } = {}) {
  const received: ReceivedMail[] = [];
  let refuse = false;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      simpleParser(stream)
        .then((parsed) => {
          if (refuse) return callback(Object.assign(new Error('mailbox unavailable'), { responseCode: 550 }));
          received.push({
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            subject: parsed.subject ?? '',
            text: parsed.text ?? '',
          });
          callback();
        })
        .catch(callback);
    },
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  /** The messages to `address` so far. */
  const mailTo = (address: string) => received.filter((mail) => mail.to.includes(address));

  /** Waits (polling) until `count` messages reached `address`; the last of them. */
  async function waitForMail(address: string, count = 1, timeoutMs = 20_000): Promise<ReceivedMail> {
    const deadline = Date.now() + timeoutMs;
    while (mailTo(address).length < count) {
      if (Date.now() > deadline) throw new Error(`no ${count}th message to ${address} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return mailTo(address)[count - 1]!;
  }

  return {
    port,
    /** SMTP_URL for the product. */
    url: `smtp://127.0.0.1:${port}`,
    received,
    mailTo,
    waitForMail,
    refuseAll: (value: boolean) => (refuse = value),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The one-time code of a confirmation e-mail (its `Code: XXXX-XXXX` line). */
export function codeIn(mail: ReceivedMail): string {
  const code = mail.text.match(/^Code: ([A-Z2-9]{4}-[A-Z2-9]{4})$/m)?.[1];
  if (!code) throw new Error(`no code in the e-mail:\n${mail.text}`);
  return code;
}
