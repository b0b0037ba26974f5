'use client';
import { useCopy } from './use-copy';

/** A small button that copies a value (an id, a prefix) and says so to screen readers too. */
export function CopyValue(props: { value: string; what: string }) {
  const [state, copy] = useCopy(props.value, 2000);
  return (
    <span className="copy">
      <button
        type="button"
        className="copy-button"
        onClick={copy}
        aria-label={`Copy ${props.what}`}
        title={`Copy ${props.what}`}
        data-copy={props.value}
      >
        <svg aria-hidden="true" viewBox="0 0 16 16" width="14" height="14">
          <path
            fill="currentColor"
            d="M4 2h7a1 1 0 0 1 1 1v1h-1.5V3.5h-6v7H5V12H4a1 1 0 0 1-1-1V3a1 1 0 0 1 1-1zm3 3h6a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H7a1 1 0 0 1-1-1V6a1 1 0 0 1 1-1zm.5 1.5v6h5v-6z"
          />
        </svg>
      </button>
      <span role="status" className="copy-status">
        {state === 'copied' ? 'Copied' : state === 'failed' ? 'Copy failed' : ''}
      </span>
    </span>
  );
}
