// The package's settings of the OpenAI-compatible surface (docs/openai-compatible.md#exactly-once);
// each operation's model aliases are among its own fields.

export function OpenAIFields({ requireKey }: { requireKey: boolean }) {
  return (
    <fieldset>
      <legend>OpenAI-compatible surface (/openai/v1)</legend>
      <label className="checkbox">
        <input type="checkbox" name="openai_require_idempotency_key" defaultChecked={requireKey} />
        Require an Idempotency-Key header on every POST (else the SDKs&apos; own retries are matched by their body)
      </label>
    </fieldset>
  );
}
