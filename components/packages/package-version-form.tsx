'use client';
import { useRouter } from 'next/navigation';
import { useState, type FormEvent } from 'react';
import { packageDefinitionSchema, type PackageDefinition } from '@/server/contract/package-schema';
import type { EngineChoice } from '@/server/trpc/outputs';
import { fieldErrors } from '../forms/plain-issues';
import { TagInput } from '../forms/tag-input';
import { describeError, trpc, type FieldIssue } from '../trpc/client';
import { definitionLabel } from './definition-labels';
import { EnginePicker } from './engine-picker';
import { Field, type Errors } from './form-field';
import { NumberSetting } from './number-setting';
import { SaleFields } from './sale-fields';
import { SizeInput } from './size-input';
import { outputCapNotice, type OUTPUT_CAPPED_OPERATIONS } from '@/server/contract/output-cap-notices';
import { OpenAIFields } from './openai-fields';
import { fieldName, formToDefinition, issueField, LIST_FIELDS, listHint, NUMBER_FIELDS, OPERATIONS, TAKES_UPLOADS } from './version-fields';

type OutputCappedOperation = (typeof OUTPUT_CAPPED_OPERATIONS)[number];

/** Plain-language messages by form field: the packages-file schema's rules, in the form's words. */
function schemaErrors(error: Parameters<typeof fieldErrors>[0], definition: unknown): Errors {
  const errors: Errors = {};
  for (const [path, message] of Object.entries(fieldErrors(error, definition, definitionLabel, packageDefinitionSchema))) {
    // A size is typed in MiB or GiB: its message says so rather than counting bytes.
    errors[issueField(path)] ??=
      path === 'limits.max_upload_bytes' && !message.endsWith('is required')
        ? 'Largest upload must be more than 0 and at most 100 MiB'
        : path === 'limits.max_stored_bytes'
          ? 'Storage per key must be more than 0 (or empty)'
          : message;
  }
  return errors;
}

/** Issues only the server can judge (an unknown provider, a slug taken), labelled the same way. */
function serverErrors(issues: FieldIssue[]): Errors {
  const errors: Errors = {};
  for (const issue of issues)
    errors[issueField(issue.path)] ??= `${definitionLabel(issue.path)}: ${issue.message.replace(/^[\w.|]+: /, '')}`;
  return errors;
}

/** Creates a package or a new version of one; validated with the packages-file schema here and on the server. */
export function PackageVersionForm(props: {
  mode: 'new-package' | 'new-version';
  initial?: PackageDefinition;
  /** The version `initial` is: a new version made from a form opened before another is refused. */
  basedOnVersion?: number;
  engineChoices: EngineChoice[];
}) {
  const router = useRouter();
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessage] = useState<{ tone: 'error' | 'warn'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const initial = props.initial;
  const ops = (initial?.operations ?? {}) as Record<string, Record<string, unknown> | undefined>;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const definition = formToDefinition(new FormData(event.currentTarget));
    const checked = packageDefinitionSchema.safeParse(definition);
    if (!checked.success) {
      setErrors(schemaErrors(checked.error, definition));
      setMessage({ tone: 'error', text: 'Fix the highlighted fields.' });
      return;
    }
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      const result = await trpc.packages.createVersion.mutate({ definition, mode: props.mode, basedOnVersion: props.basedOnVersion });
      if (result.status === 'unchanged') {
        setMessage({ tone: 'warn', text: `Nothing changed: version ${result.version} stays the latest.` });
        setBusy(false);
        return;
      }
      router.push(`/packages/${result.slug}?created=${result.version}`);
      router.refresh();
    } catch (error) {
      const described = describeError(error);
      setErrors(serverErrors(described.issues));
      setMessage({ tone: 'error', text: described.message });
      setBusy(false);
    }
  }

  return (
    <form className="stack" onSubmit={submit} noValidate aria-label="Package definition">
      {message ? (
        <div className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>
          {message.text}
          {errors.operations ? <> {errors.operations}</> : null}
        </div>
      ) : null}
      <fieldset>
        <legend>Package</legend>
        <div className="form-grid">
          <Field
            name="slug"
            label="Slug"
            errors={errors}
            hint={props.mode === 'new-version' ? 'fixed: a new version keeps its package' : 'lowercase letters, digits and hyphens'}
          >
            {(a11y) => (
              <input
                type="text"
                {...a11y}
                defaultValue={initial?.slug}
                readOnly={props.mode === 'new-version'}
                aria-readonly={props.mode === 'new-version' || undefined}
                required
              />
            )}
          </Field>
          <Field name="name" label="Name" errors={errors}>
            {(a11y) => <input type="text" {...a11y} defaultValue={initial?.name} required />}
          </Field>
          <Field name="quota_units" label="Quota (units)" errors={errors}>
            {(a11y) => <input type="number" min={0} {...a11y} defaultValue={initial?.quota_units} required />}
          </Field>
          <Field name="requests_per_minute" label="Requests per minute" errors={errors}>
            {(a11y) => <input type="number" min={1} {...a11y} defaultValue={initial?.limits.requests_per_minute} required />}
          </Field>
          <Field name="concurrency" label="Concurrent requests" errors={errors}>
            {(a11y) => <input type="number" min={1} {...a11y} defaultValue={initial?.limits.concurrency} required />}
          </Field>
          <Field
            name="max_upload_bytes"
            label="Largest upload"
            errors={errors}
            hint="empty: 100 MiB, the most allowed; 1 MiB = 1,048,576 bytes"
          >
            {(a11y) => (
              <SizeInput
                a11y={a11y}
                bytes={initial?.limits.max_upload_bytes}
                unitName="max_upload_unit"
                unitLabel="Unit of the largest upload"
              />
            )}
          </Field>
          <Field
            name="max_stored_bytes"
            label="Storage per key"
            errors={errors}
            hint="what one key may hold at once (uploads and outputs); empty: 10 × the largest upload"
          >
            {(a11y) => (
              <SizeInput
                a11y={a11y}
                bytes={initial?.limits.max_stored_bytes}
                unitName="max_stored_unit"
                unitLabel="Unit of the storage per key"
              />
            )}
          </Field>
          <Field
            name="unit_price"
            label="Unit price"
            errors={errors}
            hint="what one unit sells for, in the deployment's currency; empty: not set"
          >
            {(a11y) => <input type="text" inputMode="decimal" {...a11y} defaultValue={initial?.unit_price ?? ''} />}
          </Field>
          <Field
            name="max_provider_cost_per_day"
            label="Provider cost budget per key per day"
            errors={errors}
            hint="past it, the key's paid requests get 429 until midnight UTC; empty: none"
          >
            {(a11y) => <input type="text" inputMode="decimal" {...a11y} defaultValue={initial?.limits.max_provider_cost_per_day ?? ''} />}
          </Field>
        </div>
      </fieldset>
      <SaleFields initial={initial?.sale} errors={errors} />
      <OpenAIFields requireKey={Boolean(initial?.openai_compatible?.require_idempotency_key)} />
      {OPERATIONS.map((operation) => {
        const settings = ops[operation];
        const list = (key: string) => (Array.isArray(settings?.[key]) ? (settings[key] as string[]) : []);
        return (
          <fieldset key={operation}>
            <legend>{operation}</legend>
            <label className="checkbox">
              <input type="checkbox" name={fieldName(operation, 'enabled')} defaultChecked={Boolean(settings)} />
              Sell {operation}
            </label>
            <div className="form-grid" style={{ marginTop: '0.75rem' }}>
              <div style={{ gridColumn: '1 / -1' }}>
                <Field
                  name={fieldName(operation, 'engine')}
                  label="Engine"
                  errors={errors}
                  hint="the first answers; a fallback is tried when a provider fails or times out"
                >
                  {(a11y) => (
                    <EnginePicker
                      operation={operation}
                      name={fieldName(operation, 'engine')}
                      initial={settings?.engine}
                      choices={props.engineChoices}
                      a11y={a11y as { id: string }}
                    />
                  )}
                </Field>
              </div>
              <Field name={fieldName(operation, 'units')} label="Units per call" errors={errors}>
                {(a11y) => <input type="number" min={0} {...a11y} defaultValue={String(settings?.units ?? 1)} />}
              </Field>
              {LIST_FIELDS[operation].map((field) => (
                <Field key={field.key} name={fieldName(operation, field.key)} label={field.label} errors={errors} hint={listHint(field)}>
                  {(a11y) => (
                    <TagInput
                      id={(a11y as { id: string }).id}
                      name={fieldName(operation, field.key)}
                      initial={list(field.key)}
                      allowed={field.allowed}
                      describedBy={(a11y as { 'aria-describedby'?: string })['aria-describedby']}
                      invalid={(a11y as { 'aria-invalid'?: boolean })['aria-invalid']}
                    />
                  )}
                </Field>
              ))}
              {NUMBER_FIELDS[operation].map((field) => (
                <Field key={field.key} name={fieldName(operation, field.key)} label={field.label} errors={errors} hint={field.hint}>
                  {(a11y) => (
                    <NumberSetting
                      a11y={a11y}
                      initial={settings?.[field.key] as number | undefined}
                      notice={field.key === 'max_output_tokens' ? outputCapNotice(operation as OutputCappedOperation) : undefined}
                    />
                  )}
                </Field>
              ))}
              {TAKES_UPLOADS.includes(operation) ? (
                <label className="checkbox">
                  <input type="checkbox" name={fieldName(operation, 'input_uploads')} defaultChecked={Boolean(settings?.input_uploads)} />
                  Accepts uploaded input
                </label>
              ) : null}
            </div>
          </fieldset>
        );
      })}
      <div className="actions">
        <button className="button" type="submit" disabled={busy}>
          {busy ? 'Saving…' : props.mode === 'new-version' ? 'Create version' : 'Create package'}
        </button>
      </div>
    </form>
  );
}
