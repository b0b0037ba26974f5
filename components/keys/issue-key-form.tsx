'use client';
import Link from 'next/link';
import { useState, type FormEvent } from 'react';
import { describeError, trpc } from '../trpc/client';
import { CopyButton } from './copy-button';

interface PackageChoice {
  slug: string;
  name: string;
  latest_version: number;
}

interface Issued {
  id: string;
  key: string;
  package: string;
  package_version: number;
  remaining_units: number;
}

export function IssueKeyForm(props: { packages: PackageChoice[]; initialPackage?: string }) {
  const [slug, setSlug] = useState(props.initialPackage ?? props.packages[0]?.slug ?? '');
  const [issued, setIssued] = useState<Issued | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const selected = props.packages.find((pkg) => pkg.slug === slug);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const label = String(form.get('label') ?? '').trim();
    setBusy(true);
    setError(null);
    try {
      const result = await trpc.keys.issue.mutate({
        packageSlug: slug,
        version: Number(form.get('version')) || undefined,
        label: label || undefined,
      });
      setIssued(result);
    } catch (failure) {
      setError(describeError(failure).message);
    } finally {
      setBusy(false);
    }
  }

  if (issued) {
    return (
      <div className="card stack" aria-labelledby="issued-title">
        <h2 id="issued-title">Key issued</h2>
        <div className="alert alert-warn" role="status">
          Copy the key now. It is shown only once and cannot be recovered; only its hash is stored.
        </div>
        <div className="secret">
          <code data-testid="issued-key">{issued.key}</code>
          <CopyButton value={issued.key} label="Copy key" />
        </div>
        <p>
          Package <code>{issued.package}</code> version {issued.package_version}, {issued.remaining_units} units.
        </p>
        <div className="actions">
          <Link className="button" href={`/keys/${issued.id}`}>Open the key</Link>
          <Link className="button button-secondary" href="/keys">All keys</Link>
        </div>
      </div>
    );
  }

  return (
    <form className="card stack" onSubmit={submit} aria-label="Issue a key">
      {error ? <div className="alert alert-error" role="alert">{error}</div> : null}
      <div className="form-grid">
        <div className="field">
          <label htmlFor="package">Package</label>
          <select id="package" name="package" value={slug} onChange={(event) => setSlug(event.target.value)} required>
            {props.packages.map((pkg) => (
              <option key={pkg.slug} value={pkg.slug}>
                {pkg.name} ({pkg.slug})
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="version">Version</label>
          <select id="version" name="version" key={slug} defaultValue={selected?.latest_version}>
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
          <input id="label" name="label" type="text" maxLength={200} placeholder="customer or purpose" />
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
