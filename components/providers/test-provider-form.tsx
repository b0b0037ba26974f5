'use client';
import type { FormEvent } from 'react';
import { useFormAction } from '../forms/use-form-action';
import { describeError, trpc } from '../trpc/client';
import { providerIssueText } from './provider-errors';

/** "Test": one real, cheap call through the provider's engine; the outcome in plain words. */
export function TestProviderForm(props: { provider: string; operation: string | null; models: string[] }) {
  const { busy, message: result, run } = useFormAction();
  const listId = `models-${props.provider}`;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const model = String(new FormData(event.currentTarget).get('model') ?? '').trim();
    await run(async () => {
      try {
        const outcome = await trpc.providers.test.mutate({ provider: props.provider, model: model || undefined });
        return { tone: outcome.ok ? 'ok' : 'error', text: `${outcome.message} (${outcome.operation} with ${outcome.model})` };
      } catch (failure) {
        // A refused model is said with the field's label ("Model: type the model id ..."), as the form's other errors.
        const issue = describeError(failure).issues.find((found) => found.path === 'model');
        if (issue) return { tone: 'error', text: providerIssueText(issue) };
        throw failure;
      }
    });
  }

  return (
    <form className="stack" onSubmit={submit} aria-label="Test the provider" noValidate>
      <p className="muted">
        {props.operation ? (
          <>Makes one real {props.operation} call, the cheapest this type allows, with a 10 s limit. The provider may charge for it.</>
        ) : (
          'This type is not one this version can call.'
        )}
      </p>
      <div className="filters">
        <div className="field">
          <label htmlFor="test-model">Model</label>
          <input
            id="test-model"
            name="model"
            type="text"
            list={listId}
            defaultValue={props.models[0] ?? ''}
            placeholder="the model id to call"
            autoComplete="off"
          />
          <datalist id={listId}>
            {props.models.map((model) => (
              <option key={model} value={model} />
            ))}
          </datalist>
        </div>
        {/* aria-disabled while it works, not disabled: a disabled button drops the focus to the page's start. */}
        <button className="button" type="submit" disabled={!props.operation} aria-disabled={busy || undefined}>
          {busy ? 'Testing…' : 'Test'}
        </button>
      </div>
      {result ? (
        <div
          className={`alert alert-${result.tone}`}
          role={result.tone === 'error' ? 'alert' : 'status'}
          data-testid="provider-test-result"
        >
          {result.text}
        </div>
      ) : null}
    </form>
  );
}
