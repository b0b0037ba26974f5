'use client';
import Link from 'next/link';
import { useState } from 'react';
import { MAX_ENGINE_FALLBACKS } from '@/server/contract/package-schema';
import { useFocusAfterRender } from '../forms/use-focus-after-render';
import type { EngineChoice } from '@/server/trpc/outputs';

// An operation's engine(s): `local` or a provider able to serve the operation, with a model id
// (suggested from the models its packages already name), in order: the first answers, the
// others are its fallbacks. Each engine is one hidden input of the form, in that order.

interface Row {
  key: number;
  provider: string;
  model: string;
}

let nextKey = 0;

function toRows(setting: unknown): Row[] {
  const names = Array.isArray(setting) ? setting.map(String) : [typeof setting === 'string' && setting ? setting : 'local'];
  return names.map((name) => {
    const separator = name.indexOf(':');
    return separator < 0
      ? { key: nextKey++, provider: name, model: '' }
      : { key: nextKey++, provider: name.slice(0, separator), model: name.slice(separator + 1) };
  });
}

const engineOf = (row: Row) => (row.provider === 'local' ? 'local' : `${row.provider}:${row.model.trim()}`);

export function EnginePicker(props: {
  operation: string;
  name: string;
  initial: unknown;
  choices: EngineChoice[];
  a11y: { id: string; 'aria-invalid'?: boolean; 'aria-describedby'?: string };
}) {
  const [rows, setRows] = useState<Row[]>(() => toRows(props.initial));
  const able = props.choices.filter((choice) => choice.operations.includes(props.operation as EngineChoice['operations'][number]));
  const modelsOf = (provider: string) => props.choices.find((choice) => choice.provider === provider)?.models ?? [];

  const focusLater = useFocusAfterRender();
  // By position, as the selects' ids: the server renders them too (a row's key is this browser's own).
  const buttonId = (index: number, action: 'up' | 'down' | 'remove') => `${props.a11y.id}-${index}-${action}`;
  const addId = `${props.a11y.id}-add-engine`;
  const update = (index: number, change: Partial<Row>) => setRows(rows.map((row, at) => (at === index ? { ...row, ...change } : row)));
  const move = (index: number, by: -1 | 1) => {
    const next = [...rows];
    [next[index], next[index + by]] = [next[index + by]!, next[index]!];
    setRows(next);
    // The focus stays with the engine moved: on its button the same way, or the other once it reached the end.
    const at = index + by;
    const stuck = by < 0 ? at === 0 : at === next.length - 1;
    focusLater(buttonId(at, by < 0 !== stuck ? 'up' : 'down'));
  };
  const removeAt = (index: number) => {
    const next = rows.filter((_, at) => at !== index);
    setRows(next);
    // The next engine's Remove, else the one before's; a last engine cannot be removed: then Add a fallback.
    focusLater(next.length > 1 ? buttonId(Math.min(index, next.length - 1), 'remove') : addId);
  };
  const add = () => {
    const used = new Set(rows.map((row) => row.provider));
    const provider =
      able.find((choice) => !used.has(choice.provider))?.provider ?? (used.has('local') ? (able[0]?.provider ?? 'local') : 'local');
    setRows([...rows, { key: nextKey++, provider, model: modelsOf(provider)[0] ?? '' }]);
    focusLater(`${props.a11y.id}-${rows.length}`); // the new engine's provider (Add may be disabled now)
  };

  return (
    <div
      className="stack"
      role="group"
      aria-label={`${props.operation} engines, first to answer first`}
      aria-describedby={props.a11y['aria-describedby']}
    >
      {rows.map((row, index) => {
        const label = `${props.operation} engine ${index + 1}`;
        const known = row.provider === 'local' || able.some((choice) => choice.provider === row.provider);
        return (
          <div className="filters" key={row.key} style={{ marginBottom: 0 }}>
            <input type="hidden" name={props.name} value={engineOf(row)} />
            <div className="field">
              {index === 0 ? null : <span className="label">Fallback {index}</span>}
              <select
                id={index === 0 ? props.a11y.id : `${props.a11y.id}-${index}`}
                aria-label={`${label}: provider`}
                aria-invalid={props.a11y['aria-invalid']}
                value={row.provider}
                onChange={(event) => update(index, { provider: event.target.value, model: modelsOf(event.target.value)[0] ?? '' })}
              >
                <option value="local">local (offline, built in)</option>
                {able.map((choice) => (
                  <option key={choice.provider} value={choice.provider}>
                    {choice.provider} ({choice.type})
                  </option>
                ))}
                {known ? null : (
                  <option value={row.provider}>
                    {row.provider} (cannot serve {props.operation})
                  </option>
                )}
              </select>
            </div>
            {row.provider === 'local' ? null : (
              <div className="field">
                <input
                  id={`${props.a11y.id}-${index}-model`}
                  aria-label={`${label}: model`}
                  type="text"
                  list={`${props.a11y.id}-${index}-models`}
                  value={row.model}
                  placeholder="the provider's model id"
                  autoComplete="off"
                  onChange={(event) => update(index, { model: event.target.value })}
                />
                <datalist id={`${props.a11y.id}-${index}-models`}>
                  {modelsOf(row.provider).map((model) => (
                    <option key={model} value={model} />
                  ))}
                </datalist>
              </div>
            )}
            <div className="actions">
              <button
                type="button"
                id={buttonId(index, 'up')}
                className="button button-secondary"
                aria-label={`Move ${label} up`}
                disabled={index === 0}
                onClick={() => move(index, -1)}
              >
                ↑
              </button>
              <button
                type="button"
                id={buttonId(index, 'down')}
                className="button button-secondary"
                aria-label={`Move ${label} down`}
                disabled={index === rows.length - 1}
                onClick={() => move(index, 1)}
              >
                ↓
              </button>
              <button
                type="button"
                id={buttonId(index, 'remove')}
                className="button button-secondary"
                aria-label={`Remove ${label}`}
                disabled={rows.length === 1}
                onClick={() => removeAt(index)}
              >
                Remove
              </button>
            </div>
          </div>
        );
      })}
      <div className="actions">
        <button type="button" id={addId} className="button button-secondary" disabled={rows.length >= MAX_ENGINE_FALLBACKS} onClick={add}>
          Add a fallback
        </button>
        {able.length === 0 ? (
          <span className="hint">
            No provider can serve {props.operation} yet: <Link href="/providers/new">add one</Link>.
          </span>
        ) : null}
      </div>
    </div>
  );
}
