'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError } from '../trpc/client';
import { capitalised } from '../ui/format';

export interface FormMessage {
  tone: 'ok' | 'error';
  text: string;
  /** A refusal's fields (their paths), for the inputs it is about. */
  fields?: string[];
}

/**
 * A form's dashboard mutation: `run` disables the form while `action` runs, shows the sentence
 * it returns (or the error's) and refreshes the page after a success.
 */
export function useFormAction() {
  const router = useRouter();
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState<FormMessage | null>(null);
  async function run(action: () => Promise<FormMessage>) {
    setBusy(true);
    setMessage(null);
    try {
      setMessage(await action());
      router.refresh();
    } catch (failure) {
      const described = describeError(failure);
      setMessage({ tone: 'error', text: capitalised(described.message), fields: described.issues.map((issue) => issue.path) });
    } finally {
      setBusy(false);
    }
  }
  return { busy, message, setMessage, run };
}
