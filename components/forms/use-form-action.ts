'use client';
import { useRouter } from 'next/navigation';
import { useState } from 'react';
import { describeError } from '../trpc/client';

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
      // Shown as a sentence: a field's message may begin in lower case ("the webhook URL must be …").
      const text = described.message.charAt(0).toUpperCase() + described.message.slice(1);
      setMessage({ tone: 'error', text, fields: described.issues.map((issue) => issue.path) });
    } finally {
      setBusy(false);
    }
  }
  return { busy, message, setMessage, run };
}
