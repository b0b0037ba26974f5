import type { Command } from 'commander';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { output, withDb } from './context';

// `cli keys webhook`: set, rotate and clear a key's job webhook endpoint and its signing secret.

export function addWebhookCommands(keys: Command): void {
  const webhook = keys.command('webhook').description("Manage a key's job webhook endpoint (Standard Webhooks)");
  webhook
    .command('set')
    .description(
      "Set an active key's endpoint and a new signing secret, printed once (job.succeeded, job.failed, job.cancelled are POSTed to it)",
    )
    .argument('<id>', 'key id')
    .requiredOption(
      '--url <url>',
      'https URL of the endpoint (public addresses only unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=true, in the environment of the CLI as of the server)',
    )
    .option('--json', 'print {"id","url","secret"}')
    .action((id: string, options: { url: string; json?: boolean }) =>
      withDb(async (prisma) => {
        const { setKeyWebhook } = await import('../../../server/domain/webhooks/manage-webhook');
        const set = await setKeyWebhook(prisma, CLI_ACTOR, id, options.url);
        output(Boolean(options.json), { id, ...set }, () => `${id}: webhook ${set.url}\nsigning secret (shown once): ${set.secret}`);
      }),
    );
  webhook
    .command('rotate')
    .description('Replace the signing secret, printed once; the old one stops signing at once')
    .argument('<id>', 'key id')
    .option('--json', 'print {"id","url","secret"}')
    .action((id: string, options: { json?: boolean }) =>
      withDb(async (prisma) => {
        const { rotateKeyWebhookSecret } = await import('../../../server/domain/webhooks/manage-webhook');
        const rotated = await rotateKeyWebhookSecret(prisma, CLI_ACTOR, id);
        output(Boolean(options.json), { id, ...rotated }, () => `${id}: new signing secret (shown once): ${rotated.secret}`);
      }),
    );
  webhook
    .command('clear')
    .description('Remove the endpoint; deliveries not yet sent are skipped')
    .argument('<id>', 'key id')
    .option('--json', 'print {"id","url":null}')
    .action((id: string, options: { json?: boolean }) =>
      withDb(async (prisma) => {
        const { clearKeyWebhook } = await import('../../../server/domain/webhooks/manage-webhook');
        await clearKeyWebhook(prisma, CLI_ACTOR, id);
        output(Boolean(options.json), { id, url: null }, () => `${id}: webhook removed`);
      }),
    );
}
