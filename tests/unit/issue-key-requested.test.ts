import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { IssueKeyForm } from '@/components/keys/issue-key-form';

// `/keys/new?package=failpkg` for an archived (or unknown) package showed the form with another
// package chosen and the one asked for missing, without a word (dashboard audit).

const packages: { slug: string; name: string; latest_version: number; version_quotas: Record<number, number> }[] = [
  { slug: 'starter', name: 'Starter', latest_version: 2, version_quotas: { 1: 100, 2: 200 } },
  { slug: 'pro', name: 'Pro', latest_version: 1, version_quotas: { 1: 1000 } },
];
const shown = (requested?: string, archived: string[] = []) =>
  renderToStaticMarkup(createElement(IssueKeyForm, { packages, requested, archived }));

describe('the issue-key form for the package a link asks for', () => {
  it('says an archived package sells no new keys, and chooses no other package in its place', () => {
    const html = shown('failpkg', ['failpkg']);
    expect(html).toContain('Package failpkg is archived: it sells no new keys');
    expect(html).toMatch(/<option value="" disabled="" selected="">Choose a package<\/option>/);
    expect(html).not.toMatch(/<option value="starter" selected/);
  });

  it('says there is no package of an unknown slug', () => {
    const html = shown('nosuch');
    expect(html).toContain('There is no package nosuch.');
    expect(html).not.toMatch(/<option value="starter" selected/);
  });

  it('chooses the package asked for when it sells, and the first one when none is asked for, without a notice', () => {
    expect(shown('pro')).toMatch(/<option value="pro" selected="">/);
    expect(shown()).toMatch(/<option value="starter" selected="">/);
    expect(shown('pro')).not.toContain('data-testid="requested-package"');
    expect(shown()).not.toContain('Choose a package');
  });
});
