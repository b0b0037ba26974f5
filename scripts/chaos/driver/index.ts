import { packageSpec, KEY_PACKAGES } from '../stack/packages';
import type { DriverContext } from './context';
import { runPurchase, runTopUp } from './checkout';
import { runGeneration } from './generation';
import type { CallPlan } from './plan';
import { runTranscription } from './transcribe';
import { runVideo } from './video';

// The run's clients: `concurrency` of them, each taking the next planned call and running it to
// its end (retries included) until the traffic stops.

/** The package version a purchase buys: its key's package when that one is for sale. */
function purchaseOf(plan: CallPlan, saleVersions: Record<string, string>): { versionId: string; units: number } {
  const slug = KEY_PACKAGES[plan.key.name]!;
  const bought = saleVersions[slug] ? slug : Object.keys(saleVersions)[0]!;
  return { versionId: saleVersions[bought]!, units: packageSpec(bought).quota };
}

async function runPlan(ctx: DriverContext, plan: CallPlan, saleVersions: Record<string, string>): Promise<void> {
  switch (plan.kind) {
    case 'transcribe':
      return runTranscription(ctx, plan);
    case 'video':
      return runVideo(ctx, plan);
    case 'top-up':
      return runTopUp(ctx, plan);
    case 'purchase': {
      const { versionId, units } = purchaseOf(plan, saleVersions);
      return runPurchase(ctx, plan, versionId, units);
    }
    default:
      return runGeneration(ctx, plan);
  }
}

export interface DriverErrors {
  count: number;
  first?: string;
}

export async function drive(
  ctx: DriverContext,
  next: () => CallPlan,
  concurrency: number,
  saleVersions: Record<string, string>,
): Promise<DriverErrors> {
  const errors: DriverErrors = { count: 0 };
  const client = async () => {
    while (ctx.clock() < ctx.stopAt) {
      const plan = next();
      await runPlan(ctx, plan, saleVersions).catch((error: unknown) => {
        errors.count++;
        errors.first ??= `${plan.id} (${plan.kind}): ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`;
      });
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return errors;
}
