import type { Command } from 'commander';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { ApiError } from '../../../server/domain/errors';
import { output, withDb } from './context';

// `cli keys email` and `cli keys reinstate`: the key's buyer's e-mail (it confirms rotations and
// webhook changes in the customer portal) and the operator's decision on a key a dispute suspended.

export function addKeyOwnerCommands(keys: Command): void {
  keys
    .command('email')
    .description("Set the e-mail of a key's buyer, which confirms its rotations and webhook changes in the portal (--clear removes it)")
    .argument('<id>', 'key id')
    .option('--email <address>', 'the buyer’s e-mail address')
    .option('--clear', 'remove the e-mail: the portal then offers no rotation or webhook change')
    .option('--json', 'print {"id","buyer_email"}')
    .action((id: string, options: { email?: string; clear?: boolean; json?: boolean }) =>
      withDb(async (prisma) => {
        if (Boolean(options.email) === Boolean(options.clear)) {
          throw ApiError.validation([{ path: 'email', code: 'email_or_clear', message: 'give either --email <address> or --clear' }]);
        }
        const { setBuyerEmail } = await import('../../../server/domain/portal/owner-email');
        const key = await setBuyerEmail(prisma, CLI_ACTOR, id, options.clear ? null : options.email!);
        output(Boolean(options.json), key, () => (key.buyer_email ? `${key.id}: buyer ${key.buyer_email}` : `${key.id}: no buyer e-mail`));
        const { mailOn } = await import('../../../server/mail/mailer');
        // The address is kept either way; without mail the portal offers no rotation or webhook change (docs/selling.md).
        if (key.buyer_email && !mailOn()) {
          process.stderr.write(
            'notice: mail is off here (SMTP_URL and MAIL_FROM are not both set): the portal confirms by e-mail only where they are\n',
          );
        }
      }),
    );
  keys
    .command('reinstate')
    .description('Let a key that a disputed payment suspended work again (revoke it instead with `keys revoke`)')
    .argument('<id>', 'key id')
    .option('--json', 'print {"id","status"}')
    .action((id: string, options: { json?: boolean }) =>
      withDb(async (prisma) => {
        const { reinstateKey } = await import('../../../server/domain/sales/key-suspension');
        const key = await reinstateKey(prisma, CLI_ACTOR, id);
        output(Boolean(options.json), key, () => `reinstated ${key.id}`);
      }),
    );
}
