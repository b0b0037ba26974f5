'use client';
import { useState } from 'react';

/** A whole-number setting; while empty, `notice` (if any) says what that means. A notice, not an error. */
export function NumberSetting(props: { a11y: object; initial: number | undefined; notice?: string }) {
  const [empty, setEmpty] = useState(props.initial === undefined);
  return (
    <>
      <input
        type="number"
        min={1}
        {...props.a11y}
        defaultValue={props.initial}
        onChange={(event) => setEmpty(event.currentTarget.value.trim() === '')}
      />
      {props.notice && empty ? (
        <span className="hint notice" role="status">
          Notice: {props.notice}.
        </span>
      ) : null}
    </>
  );
}
