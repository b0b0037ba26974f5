'use client';
import { useRouter } from 'next/navigation';
import { useRef, useState, type FormEvent } from 'react';
import { PROVIDER_TYPE_INFO, PROVIDER_TYPES, type ProviderType } from '@/server/contract/provider-types';
import { describeError, trpc } from '../trpc/client';
import { ConfirmQuestion, useQuestion } from '../ui/confirm-dialog';
import { PRICES_EXAMPLE, providerEntryErrors, providerIssueErrors, providerNameError } from './provider-errors';

// Adds or edits a provider: the fields of a packages-file provider entry. What each type can
// serve comes from the capability table, so the operator picks a type knowing what it sells.

export interface ProviderInitial {
  name: string;
  type: string;
  base_url: string | null;
  api_key_env: string | null;
  options: Record<string, string>;
  prices?: Record<string, unknown>;
}

type Errors = Record<string, string>;

/** The alert above the form: the fields' own errors are not said twice. */
const FIX_FIELDS = 'Fix the highlighted fields.';

const serves = (type: ProviderType) => PROVIDER_TYPE_INFO[type].operations.join(', ');

/** Whether saving `entry` moves the provider to another server (type, base URL, azure's resource), which deletes its stored key. */
function movesProvider(initial: ProviderInitial, entry: Record<string, unknown>): boolean {
  const given = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);
  return (
    entry.type !== initial.type ||
    given(entry.base_url) !== initial.base_url ||
    given(entry.resource_name) !== given(initial.options.resource_name)
  );
}

export function ProviderForm(props: { mode: 'create' | 'update'; initial?: ProviderInitial; hasStoredKey?: boolean }) {
  const router = useRouter();
  const initial = props.initial;
  const [type, setType] = useState<ProviderType>((initial?.type as ProviderType | undefined) ?? 'openai');
  const [errors, setErrors] = useState<Errors>({});
  const [message, setMessage] = useState<{ tone: 'ok' | 'warn' | 'error'; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  /** An edit that would delete the stored key waits for the operator's yes; Cancel gives the focus back to Save. */
  const question = useQuestion<'move'>();
  const moving = useRef<Record<string, unknown> | null>(null);
  const info = PROVIDER_TYPE_INFO[type] ?? PROVIDER_TYPE_INFO.openai;

  /** The form's entry, judged here first; undefined (the errors shown) when it has any. */
  function readEntry(form: FormData): Record<string, unknown> | undefined {
    const text = (key: string) => String(form.get(key) ?? '').trim();
    const entry: Record<string, unknown> = { type, base_url: text('base_url'), api_key_env: text('api_key_env') };
    for (const extra of Object.keys(info.extras)) entry[extra] = text(extra);
    if (text('prices') !== '') {
      try {
        entry.prices = JSON.parse(text('prices'));
      } catch {
        setErrors({ prices: `Prices must be JSON, such as ${PRICES_EXAMPLE}` });
        setMessage({ tone: 'error', text: FIX_FIELDS });
        return undefined;
      }
    }
    // Empty fields mean "not given", as the server reads them.
    const given = Object.fromEntries(Object.entries(entry).filter(([, value]) => value !== ''));
    const nameError = props.mode === 'create' ? providerNameError(text('name')) : undefined;
    const found = { ...(nameError ? { name: nameError } : {}), ...providerEntryErrors(given) };
    if (Object.keys(found).length === 0) return entry;
    setErrors(found);
    setMessage({ tone: 'error', text: FIX_FIELDS });
    return undefined;
  }

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const entry = readEntry(form);
    if (!entry) return;
    if (props.mode === 'update' && props.hasStoredKey && movesProvider(initial!, entry)) {
      setErrors({});
      setMessage(null);
      moving.current = entry;
      question.ask('move');
      return;
    }
    await save(props.mode === 'update' ? initial!.name : String(form.get('name') ?? '').trim(), entry);
  }

  async function save(name: string, entry: Record<string, unknown>) {
    setBusy(true);
    setErrors({});
    setMessage(null);
    try {
      const saved = await trpc.providers.save.mutate({ name, mode: props.mode, entry });
      if (props.mode === 'create') {
        router.push(`/providers/${saved.name}?created=1`);
        router.refresh();
        return;
      }
      setMessage(
        saved.status === 'unchanged'
          ? { tone: 'warn', text: 'Nothing changed.' }
          : saved.key_cleared
            ? { tone: 'warn', text: 'Saved. The type or base URL changed, so its stored key was deleted: set the key again below.' }
            : { tone: 'ok', text: 'Saved. Engines use it within 10 seconds on every instance.' },
      );
      router.refresh();
      question.close();
    } catch (failure) {
      question.cancel(); // a move refused: the focus goes back to Save, beside the fields to fix
      const described = describeError(failure);
      const found = providerIssueErrors(described.issues);
      const shown = ['name', 'type', 'base_url', 'api_key_env', 'prices', ...Object.keys(info.extras)];
      const allShown = described.issues.length > 0 && Object.keys(found).every((key) => shown.includes(key));
      setErrors(found);
      setMessage({ tone: 'error', text: allShown ? FIX_FIELDS : described.message });
    } finally {
      setBusy(false);
    }
  }

  const field = (key: string) => ({
    id: `provider-${key}`,
    name: key,
    'aria-invalid': errors[key] ? true : undefined,
    'aria-describedby': errors[key] ? `provider-${key}-error` : `provider-${key}-hint`,
  });
  const error = (key: string) =>
    errors[key] ? (
      <span className="error" id={`provider-${key}-error`}>
        {errors[key]}
      </span>
    ) : null;

  return (
    <form className="stack" onSubmit={submit} noValidate aria-label={props.mode === 'create' ? 'New provider' : 'Edit provider'}>
      {message ? (
        <div className={`alert alert-${message.tone}`} role={message.tone === 'error' ? 'alert' : 'status'}>
          {message.text}
        </div>
      ) : null}
      <div className="form-grid">
        {props.mode === 'create' ? (
          <div className="field">
            <label htmlFor="provider-name">Name</label>
            <input type="text" {...field('name')} required autoComplete="off" />
            <span className="hint" id="provider-name-hint">
              engines name it as NAME:MODEL; lowercase letters, digits, _ and -
            </span>
            {error('name')}
          </div>
        ) : null}
        <div className="field">
          <label htmlFor="provider-type">Type</label>
          <select {...field('type')} value={type} onChange={(event) => setType(event.target.value as ProviderType)}>
            {PROVIDER_TYPES.map((option) => (
              <option key={option} value={option}>
                {option}: {serves(option)}
              </option>
            ))}
          </select>
          <span className="hint" id="provider-type-hint">
            {info.label}. Serves {serves(type)}.
          </span>
          {error('type')}
        </div>
        <div className="field">
          <label htmlFor="provider-base_url">Base URL</label>
          <input
            type="text"
            inputMode="url"
            {...field('base_url')}
            key={`base-${type}`}
            defaultValue={initial?.type === type ? (initial.base_url ?? '') : ''}
            placeholder={info.baseUrlRequired ? 'required, e.g. http://127.0.0.1:8000/v1' : info.defaultBaseUrl}
          />
          <span className="hint" id="provider-base_url-hint">
            {info.baseUrlRequired ? 'required: this type has no public server' : `empty: ${info.defaultBaseUrl}`}
          </span>
          {error('base_url')}
        </div>
        <div className="field">
          <label htmlFor="provider-api_key_env">Key environment variable</label>
          <input
            type="text"
            {...field('api_key_env')}
            defaultValue={initial?.api_key_env ?? ''}
            placeholder="e.g. ANTHROPIC_API_KEY"
            autoComplete="off"
          />
          <span className="hint" id="provider-api_key_env-hint">
            optional: a key set on the provider&apos;s page is used first
          </span>
          {error('api_key_env')}
        </div>
        {Object.entries(info.extras).map(([extra, about]) => (
          <div className="field" key={`${type}-${extra}`}>
            <label htmlFor={`provider-${extra}`}>
              {extra}
              {about.required ? '' : ' (optional)'}
            </label>
            <input type="text" {...field(extra)} defaultValue={initial?.options[extra] ?? ''} autoComplete="off" />
            <span className="hint" id={`provider-${extra}-hint`}>
              {about.description}
            </span>
            {error(extra)}
          </div>
        ))}
        <div className="field">
          <label htmlFor="provider-prices">Prices (optional)</label>
          <textarea
            {...field('prices')}
            rows={4}
            defaultValue={initial?.prices && Object.keys(initial.prices).length > 0 ? JSON.stringify(initial.prices, null, 2) : ''}
            placeholder='{"gpt-4o-mini": {"input_per_mtok": 0.15, "output_per_mtok": 0.6}}'
          />
          <span className="hint" id="provider-prices-hint">
            Per model id, in the deployment&apos;s currency: input_per_mtok, output_per_mtok, cached_input_per_mtok, per_character,
            per_second, per_image. They override the genai-prices table; a model with neither is counted as unpriced.
          </span>
          {error('prices')}
        </div>
      </div>
      {question.asking ? (
        <ConfirmQuestion
          question={`Move ${initial!.name} to another server?`}
          consequence="Its type or address changes, so its stored key is deleted (it was given for the old server): set the key again after saving."
          confirmLabel={busy ? 'Saving…' : 'Save and delete the key'}
          busy={busy}
          onConfirm={() => void save(initial!.name, moving.current!)}
          onCancel={question.cancel}
        />
      ) : (
        <div className="actions">
          <button ref={question.opener('move')} className="button" type="submit" disabled={busy}>
            {busy ? 'Saving…' : props.mode === 'create' ? 'Add provider' : 'Save changes'}
          </button>
        </div>
      )}
    </form>
  );
}
