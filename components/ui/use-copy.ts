'use client';
import { useEffect, useRef, useState } from 'react';

export type CopyState = 'idle' | 'copied' | 'failed';

/**
 * Writes `text` to the clipboard. The Clipboard API exists only in secure contexts (HTTPS,
 * localhost); a dashboard reached over plain HTTP on a private network copies through the older
 * copy command instead, which a click still allows there. Focus goes back where it was.
 */
export async function copyText(text: string): Promise<void> {
  if (window.isSecureContext && navigator.clipboard) return navigator.clipboard.writeText(text);
  const focused = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const area = document.createElement('textarea');
  area.value = text;
  area.readOnly = true;
  area.setAttribute('aria-hidden', 'true');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  try {
    if (!document.execCommand('copy')) throw new Error('the browser refused to copy');
  } finally {
    area.remove();
    focused?.focus();
  }
}

/** A copy action and what became of it (`resetMs`: back to idle after that long; none: stays). */
export function useCopy(value: string, resetMs?: number): [CopyState, () => void] {
  const [state, setState] = useState<CopyState>('idle');
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  function copy() {
    clearTimeout(timer.current);
    copyText(value).then(
      () => setState('copied'),
      () => setState('failed'),
    );
    if (resetMs !== undefined) timer.current = setTimeout(() => setState('idle'), resetMs);
  }
  return [state, copy];
}
