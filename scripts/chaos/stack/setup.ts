import { disconnectDb, getPrisma } from '../../../server/db/client';
import { migrateDatabase } from '../../../server/db/migrate';
import { CLI_ACTOR } from '../../../server/domain/actor';
import { issueKey } from '../../../server/domain/keys/issue-key';
import { applyPackages, parsePackagesFile } from '../../../server/domain/packages/apply-packages';
import { setKeyWebhook } from '../../../server/domain/webhooks/manage-webhook';
import type { KeyRecord } from '../history';
import { KEY_PACKAGES, packageSpec, packagesFile } from './packages';

// What an operator does before customers arrive: the schema migrated, the run's packages file
// applied, a key issued on each package and its job webhook pointed at the run's receiver. Done
// with the product's own use cases (as `npm run cli` would), in this process, before the apps start.

export interface IssuedKey extends KeyRecord {
  secret: string;
  webhookSecret: string;
}

export interface Books {
  keys: IssuedKey[];
  /** The version of each package for sale, by slug. */
  saleVersions: Record<string, string>;
}

export async function setUpBooks(databaseUrl: string, chatBaseUrl: string, webhookUrlFor: (name: string) => string): Promise<Books> {
  await migrateDatabase(databaseUrl);
  const db = getPrisma();
  try {
    await applyPackages(db, CLI_ACTOR, parsePackagesFile(packagesFile(chatBaseUrl)));
    const saleVersions: Record<string, string> = {};
    const selling = Object.values(KEY_PACKAGES).filter((slug) => packageSpec(slug).sells);
    for (const version of await db.packageVersion.findMany({ where: { package: { slug: { in: selling } } }, include: { package: true } }))
      saleVersions[version.package.slug] = version.id;
    const keys: IssuedKey[] = [];
    for (const [name, slug] of Object.entries(KEY_PACKAGES)) {
      const issued = await issueKey(db, CLI_ACTOR, { packageSlug: slug, label: `chaos ${name}` });
      const webhook = await setKeyWebhook(db, CLI_ACTOR, issued.id, webhookUrlFor(name));
      const spec = packageSpec(slug);
      keys.push({
        name,
        id: issued.id,
        secret: issued.key,
        webhookSecret: webhook.secret,
        packageSlug: slug,
        quota: spec.quota,
        concurrency: spec.concurrency,
        requestsPerMinute: spec.rpm,
      });
    }
    return { keys, saleVersions };
  } finally {
    await disconnectDb();
  }
}
