'use client';
import { useCopy } from '../ui/use-copy';

export function CopyButton(props: { value: string; label: string }) {
  const [state, copy] = useCopy(props.value);
  return (
    <>
      <button type="button" className="button button-secondary" onClick={copy}>
        {props.label}
      </button>
      <span role="status" className="muted">
        {state === 'copied' ? 'Copied.' : state === 'failed' ? 'Copy failed: select the text and copy it.' : ''}
      </span>
    </>
  );
}
