'use client';
import { useState, type KeyboardEvent } from 'react';
import { useFocusAfterRender } from './use-focus-after-render';

/**
 * A list setting as tags: type and press Enter or comma to add, Backspace or × to remove; the
 * interface's allowed values (when the list is closed) are offered as buttons. Each tag is a hidden
 * input of its own, kept as it is: a tag from the packages file may hold a comma or edge spaces
 * (`"oil, on canvas"`), which a comma-joined value split them at.
 */
export function TagInput(props: {
  id: string;
  name: string;
  initial: string[];
  allowed?: readonly string[];
  describedBy?: string;
  invalid?: boolean;
}) {
  const [tags, setTags] = useState<string[]>(props.initial);
  const [draft, setDraft] = useState('');
  const add = (value: string) => {
    const tag = value.trim();
    if (tag && !tags.includes(tag)) setTags([...tags, tag]);
    setDraft('');
  };
  const remove = (tag: string) => setTags(tags.filter((item) => item !== tag));
  const focusLater = useFocusAfterRender();
  const choiceId = (value: string) => `${props.id}-choice-${value}`;
  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === 'Enter' || event.key === ',') {
      event.preventDefault();
      add(draft);
    } else if (event.key === 'Backspace' && draft === '' && tags.length > 0) {
      remove(tags.at(-1)!);
    }
  }
  const offered = (props.allowed ?? []).filter((value) => !tags.includes(value));
  return (
    <div className="stack" style={{ gap: '0.35rem' }}>
      <div className="tags" data-testid={`tags-${props.name}`}>
        {tags.map((tag, index) => (
          <span className="tag" key={tag}>
            {tag}
            {index === 0 ? <span className="muted"> (default)</span> : null}
            <button
              type="button"
              onClick={() => {
                remove(tag);
                focusLater(props.id); // the button goes with its tag
              }}
              aria-label={`Remove ${tag}`}
            >
              ×
            </button>
          </span>
        ))}
        <input
          id={props.id}
          type="text"
          value={draft}
          onChange={(event) => {
            const value = event.target.value;
            if (value.endsWith(',')) add(value.slice(0, -1));
            else setDraft(value);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => draft && add(draft)}
          placeholder={tags.length ? '' : props.allowed ? 'all allowed' : 'type and press Enter'}
          aria-describedby={props.describedBy}
          aria-invalid={props.invalid}
        />
      </div>
      {[...tags, ...(draft.trim() && !tags.includes(draft.trim()) ? [draft.trim()] : [])].map((tag, index) => (
        <input key={index} type="hidden" name={props.name} value={tag} />
      ))}
      {offered.length > 0 ? (
        <div className="actions" role="group" aria-label="Allowed values">
          {offered.map((value, index) => (
            <button
              key={value}
              id={choiceId(value)}
              type="button"
              className="button button-secondary tag-choice"
              onClick={() => {
                add(value);
                // The button goes once its value is a tag: the next one offered takes the focus, or the field.
                const next = offered[index + 1] ?? offered[index - 1];
                focusLater(next === undefined ? props.id : choiceId(next));
              }}
            >
              + {value}
            </button>
          ))}
        </div>
      ) : null}
    </div>
  );
}
