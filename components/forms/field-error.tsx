export { fieldErrors } from './plain-issues';

/** The message next to a field, tied to it by aria-describedby (see FieldError.props). */
export function FieldError(props: { name: string; errors: Record<string, string>; id?: string }) {
  const message = props.errors[props.name];
  if (!message) return null;
  return (
    <span className="error" id={props.id ?? `${props.name}-error`} data-testid={`${props.name}-error`}>
      {message}
    </span>
  );
}

/** aria-invalid and aria-describedby of a field with a possible error (and an optional hint). */
FieldError.props = (name: string, errors: Record<string, string>, hintId?: string) => ({
  'aria-invalid': errors[name] ? true : undefined,
  'aria-describedby': [hintId, errors[name] ? `${name}-error` : undefined].filter(Boolean).join(' ') || undefined,
});
