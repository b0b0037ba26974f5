'use client';
import Link from 'next/link';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { keyIssueInput } from '@/server/contract/dashboard/key-forms';
import { formatNumber, lastDay } from '../ui/format';
import { FieldError, fieldErrors } from '../forms/field-error';
import { describeError, trpc } from '../trpc/client';
import { CopyButton } from './copy-button';
import { requestedPackageProblem } from './requested-package';

const LABELS: Record<string, string> = {
  packageSlug: 'Package',
  version: 'Version',
  label: 'Label',
  expiresOn: 'Expires after',
  extraUnits: 'Extra units',
};

interface PackageChoice {
  slug: string;
  name: string;
  latest_version: number;
  /** Each version's quota units, by version number. */
  version_quotas: Record<number, number>;
}

interface Issued {
  id: string;
  key: string;
  package: string;
  package_version: number;
  remaining_units: number;
  expires_at: string | null;
}

/**
 * `requested` is the package a link asked for (`?package=`); one not offered (`archived`, or none
 * of that slug) is named in a notice and no other package is chosen in its place.
 */
export function IssueKeyForm(props: { packages: PackageChoice[]; requested?: string; archived?: readonly string[] }) {
  const problem = requestedPackageProblem(props.requested, props.packages, props.archived ?? []);
  const [slug, setSlug] = useState(problem ? '' : (props.requested ?? props.packages[0]?.slug ?? ''));
  const [issued, setIssued] = useState<Issued | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);
  const selected = props.packages.find((pkg) => pkg.slug === slug);
  const [version, setVersion] = useState<number | undefined>(undefined);
  const chosenVersion = version ?? selected?.latest_version ?? 0;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const text = (name: string) => String(form.get(name) ?? '').trim() || undefined;
    const extra = text('extraUnits');
    const input = {
      packageSlug: slug,
      version: Number(form.get('version')) || undefined,
      label: text('label'),
      expiresOn: text('expiresOn'),
      extraUnits: extra === undefined ? undefined : Number(extra.replaceAll(',', '')),
    };
    const parsed = keyIssueInput.safeParse(input);
    const today = new Date().toISOString().slice(0, 10);
    const found = parsed.success ? {} : fieldErrors(parsed.error, input, (path) => LABELS[path] ?? path, keyIssueInput);
    // Checked with the rest (review: only once every other field parsed, one round of errors after another).
    if (!found.expiresOn && input.expiresOn && input.expiresOn < today) found.expiresOn = `Expires after must be today (${today}) or later`;
    setErrors(found);
    // Said once above the form (role=alert), so a screen reader hears why nothing was issued.
    setError(Object.keys(found).length > 0 ? 'Fix the highlighted fields.' : null);
    if (Object.keys(found).length > 0 || !parsed.success) return;
    setBusy(true);
    setError(null);
    try {
      setIssued(await trpc.keys.issue.mutate(parsed.data));
    } catch (failure) {
      const described = describeError(failure);
      setError(described.message);
      // The server's own issues (an archived package, an expiry in the past) show on their fields too.
      setErrors(Object.fromEntries(described.issues.filter((issue) => LABELS[issue.path]).map((issue) => [issue.path, issue.message])));
    } finally {
      setBusy(false);
    }
  }

  if (issued) return <IssuedKey issued={issued} />;
  return (
    <form className="card stack" onSubmit={submit} aria-label="Issue a key" noValidate>
      {error ? (
        <div className="alert alert-error" role="alert">
          {error}
        </div>
      ) : null}
      {problem && !slug ? (
        <div className="alert alert-warn" role="status" data-testid="requested-package">
          {problem} Choose the package of the key below.
        </div>
      ) : null}
      <div className="form-grid">
        <div className="field">
          <label htmlFor="package">Package</label>
          <select
            id="package"
            name="package"
            value={slug}
            onChange={(event) => {
              setSlug(event.target.value);
              setVersion(undefined); // the new package's select starts at its latest version
            }}
            required
            {...FieldError.props('packageSlug', errors)}
          >
            {slug === '' ? (
              <option value="" disabled>
                Choose a package
              </option>
            ) : null}
            {props.packages.map((pkg) => (
              <option key={pkg.slug} value={pkg.slug}>
                {pkg.name} ({pkg.slug})
              </option>
            ))}
          </select>
          <FieldError name="packageSlug" errors={errors} />
        </div>
        <div className="field">
          <label htmlFor="version">Version</label>
          <select
            id="version"
            name="version"
            key={slug}
            defaultValue={selected?.latest_version}
            onChange={(event) => setVersion(Number(event.currentTarget.value))}
          >
            {Array.from({ length: selected?.latest_version ?? 0 }, (_, index) => (selected?.latest_version ?? 0) - index).map((version) => (
              <option key={version} value={version}>
                {version}
                {version === selected?.latest_version ? ' (latest)' : ''}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="label">Label</label>
          <input
            id="label"
            name="label"
            type="text"
            maxLength={200}
            placeholder="customer or purpose"
            {...FieldError.props('label', errors)}
          />
          <FieldError name="label" errors={errors} />
        </div>
        <div className="field">
          <label htmlFor="expiresOn">Expires after</label>
          <input
            id="expiresOn"
            name="expiresOn"
            type="text"
            className="date-input"
            inputMode="numeric"
            placeholder="YYYY-MM-DD"
            maxLength={10}
            {...FieldError.props('expiresOn', errors, 'expiresOn-hint')}
          />
          <span className="hint" id="expiresOn-hint">
            Last UTC day the key works; empty for no expiry
          </span>
          <FieldError name="expiresOn" errors={errors} />
        </div>
        <div className="field">
          <label htmlFor="extraUnits">Extra units</label>
          <input
            id="extraUnits"
            name="extraUnits"
            type="text"
            inputMode="numeric"
            placeholder="0"
            {...FieldError.props('extraUnits', errors, 'extraUnits-hint')}
          />
          <span className="hint" id="extraUnits-hint">
            {selected
              ? `On top of version ${chosenVersion}'s ${formatNumber(selected.version_quotas[chosenVersion] ?? 0)} units`
              : "On top of the chosen version's units"}
          </span>
          <FieldError name="extraUnits" errors={errors} />
        </div>
      </div>
      <div className="actions">
        <button className="button" type="submit" disabled={busy || !slug}>
          {busy ? 'Issuing…' : 'Issue key'}
        </button>
      </div>
    </form>
  );
}

/** The issued key, shown once; the focus moves to it from the form it replaces (which held it). */
function IssuedKey({ issued }: { issued: Issued }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <div className="card stack" aria-labelledby="issued-title">
      <h2 id="issued-title" ref={heading} tabIndex={-1}>
        Key issued
      </h2>
      <div className="alert alert-warn" role="status">
        Copy the key now. It is shown only once and cannot be recovered; only its hash is stored.
      </div>
      <div className="secret">
        <code data-testid="issued-key">{issued.key}</code>
        <CopyButton value={issued.key} label="Copy key" />
      </div>
      <p>
        Package <code>{issued.package}</code> version {issued.package_version}, {formatNumber(issued.remaining_units)} units,{' '}
        {issued.expires_at ? `works until ${lastDay(issued.expires_at)} (UTC, inclusive)` : 'no expiry'}.
      </p>
      <div className="actions">
        <Link className="button" href={`/keys/${issued.id}`}>
          Open the key
        </Link>
        <Link className="button button-secondary" href="/keys">
          All keys
        </Link>
      </div>
    </div>
  );
}
