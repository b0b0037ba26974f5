import type { PrismaClient } from '../../db/generated/client';
import { apiKeyEnvProblem } from './provider-guard';

// Provider rows written before the api_key_env allowlist (or by hand) that fail it: named at
// start, one line each, so the owner learns of them before a customer's call is refused.

/** One line per provider row whose api_key_env is refused; empty when every row passes. */
export async function refusedProviderLines(db: PrismaClient): Promise<string[]> {
  const rows = await db.provider.findMany({ where: { apiKeyEnv: { not: null } }, select: { name: true, type: true, apiKeyEnv: true } });
  return rows.flatMap((row) => {
    const problem = apiKeyEnvProblem(row.type, row.apiKeyEnv!);
    return problem ? [`provider ${row.name} is refused (no call goes through it until an owner fixes it): api_key_env ${problem}`] : [];
  });
}
