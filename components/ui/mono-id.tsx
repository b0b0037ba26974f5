import Link from 'next/link';
import { CopyValue } from './copy-value';

/** The middle of a long id gives way to an ellipsis; its start and end are what people compare. */
export function truncateMiddle(value: string, head = 8, tail = 6): string {
  return value.length <= head + tail + 1 ? value : `${value.slice(0, head)}…${value.slice(-tail)}`;
}

/**
 * A monospace id on one line, truncated in the middle (the whole value on hover, to screen
 * readers and in the copy button), optionally a link to its object.
 */
export function MonoId(props: { value: string; what: string; href?: string; head?: number; tail?: number; full?: boolean }) {
  const shown = props.full ? props.value : truncateMiddle(props.value, props.head, props.tail);
  const code = (
    <code className="mono-id" title={props.value} aria-label={shown === props.value ? undefined : props.value}>
      {shown}
    </code>
  );
  return (
    <span className="id-cell">
      {props.href ? <Link href={props.href}>{code}</Link> : code}
      <CopyValue value={props.value} what={props.what} />
    </span>
  );
}
