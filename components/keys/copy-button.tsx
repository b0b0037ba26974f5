'use client';
import { useState } from 'react';

export function CopyButton(props: { value: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  return (
    <>
      <button
        type="button"
        className="button button-secondary"
        onClick={() => {
          // navigator.clipboard exists only in secure contexts (HTTPS or localhost).
          const written = navigator.clipboard?.writeText(props.value) ?? Promise.reject(new Error('no clipboard'));
          written.then(
            () => setState('copied'),
            () => setState('failed'),
          );
        }}
      >
        {props.label}
      </button>
      <span role="status" className="muted">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}
