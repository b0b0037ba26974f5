import { sendMail } from '../../mail/mailer';
import { ApiError } from '../errors';

// The e-mails the key's buyer gets: the one-time code that confirms a change asked for in the
// portal, and a notice of every change made (to the key's secret, its webhook, its e-mail).

export type OwnershipChange = 'rotate_key' | 'set_webhook' | 'rotate_webhook_secret' | 'clear_webhook';

const WHAT: Record<OwnershipChange, string> = {
  rotate_key: "replace your API key's secret (the current key stops working at once)",
  set_webhook: 'set the job webhook endpoint of your API key',
  rotate_webhook_secret: "replace the signing secret of your API key's job webhook",
  clear_webhook: "remove your API key's job webhook",
};

const DONE: Record<OwnershipChange, string> = {
  rotate_key: "Your API key's secret was replaced: the previous key no longer works.",
  set_webhook: "Your API key's job webhook endpoint was set, with a new signing secret.",
  rotate_webhook_secret: "The signing secret of your API key's job webhook was replaced.",
  clear_webhook: "Your API key's job webhook was removed.",
};

const IGNORE = 'If you did not ask for this, someone else has your API key: do not share this code, and ask';

/** Sends the code; a server that refuses it is a 503 and nothing waits for a code that never left. */
export async function mailConfirmationCode(input: {
  to: string;
  keyPrefix: string;
  change: OwnershipChange;
  webhookUrl: string | null;
  code: string;
  minutes: number;
  contact: string;
}): Promise<void> {
  const lines = [
    `Someone who signed in to the customer portal with your API key ${input.keyPrefix}… asked to ${WHAT[input.change]}.`,
    ...(input.webhookUrl ? [`Endpoint: ${input.webhookUrl}`] : []),
    '',
    `Code: ${input.code}`,
    '',
    `Enter it in the portal within ${input.minutes} minutes, in the browser that asked; it works once.`,
    `${IGNORE} ${input.contact} to revoke it.`,
  ];
  await sendMail({ to: input.to, subject: `Your confirmation code: ${input.code}`, text: lines.join('\n') }).catch((error: unknown) => {
    throw new ApiError('provider_unavailable', {
      message: 'The confirmation e-mail could not be sent; nothing was changed. Try again later.',
      cause: error,
    });
  });
}

/** Tells the buyer a change was made; a failure is logged and changes nothing (the change stands). */
export async function mailChangeNotice(input: { to: string; keyPrefix: string; text: string; contact: string }): Promise<void> {
  const lines = [
    input.text,
    '',
    `Key: ${input.keyPrefix}…`,
    `Time: ${new Date().toISOString()}`,
    '',
    `Not you? Ask ${input.contact} at once.`,
  ];
  await sendMail({ to: input.to, subject: `Your API key ${input.keyPrefix}… was changed`, text: lines.join('\n') }).catch(
    (error: unknown) => {
      console.error(`[mail] the change notice to the buyer of ${input.keyPrefix}… was not sent: ${String(error)}`);
    },
  );
}

export const changeNoticeText = (change: OwnershipChange, webhookUrl: string | null): string =>
  change === 'set_webhook' && webhookUrl ? `${DONE[change]} Endpoint: ${webhookUrl}` : DONE[change];
