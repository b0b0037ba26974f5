'use client';

import { useRouter } from 'next/navigation';
import { useEffect } from 'react';

const EVERY_MS = 5_000;
const FOR_MS = 5 * 60_000;

/**
 * Renders the page again every few seconds while a payment is being confirmed, for five minutes:
 * the webhook usually lands a moment after Stripe's redirect, and the key then appears without a
 * reload. Each pass is one read; Stripe itself is asked at most every STRIPE_CHECK_SECONDS.
 */
export function RefreshWhileProcessing() {
  const router = useRouter();
  useEffect(() => {
    const startedAt = Date.now();
    const timer = setInterval(() => {
      if (Date.now() - startedAt > FOR_MS) clearInterval(timer);
      else router.refresh();
    }, EVERY_MS);
    return () => clearInterval(timer);
  }, [router]);
  return null;
}
