import { describe, expect, it } from 'vitest';
import { shownValue } from '@/components/packages/version-diff';
import { formToDefinition, sizeForForm } from '@/components/packages/version-fields';
import { packageForm } from './support/package-form';

// The package form shows a version's sizes for its next version: saved untouched, they must come
// back to the byte (dashboard audit: 10,000,000 bytes shown as 9.537 MiB came back 10,000,269).

function savedUntouched(maxUploadBytes: number, maxStoredBytes: number) {
  const upload = sizeForForm(maxUploadBytes);
  const stored = sizeForForm(maxStoredBytes);
  const form = packageForm({
    slug: 'sizes',
    name: 'Sizes',
    max_upload_bytes: upload.amount,
    max_upload_unit: upload.unit,
    max_stored_bytes: stored.amount,
    max_stored_unit: stored.unit,
  });
  return (formToDefinition(form) as { limits: Record<string, unknown> }).limits;
}

describe('sizes in the package form', () => {
  it.each([
    [10_000_000, 1_000_000_000],
    [104_797_202, 1_073_741_823],
    [1_000, 1],
    [1_572_864, 2 * 1024 ** 3],
    [104_857_600, 1_073_742],
  ])('%i and %i bytes come back to the byte', (upload, stored) => {
    expect(savedUntouched(upload, stored)).toMatchObject({ max_upload_bytes: upload, max_stored_bytes: stored });
  });

  it('shows whole GiB in GiB, exact MiB in MiB, and any other size in bytes', () => {
    expect(sizeForForm(2 * 1024 ** 3)).toEqual({ amount: '2', unit: 'GiB' });
    expect(sizeForForm(1_572_864)).toEqual({ amount: '1.5', unit: 'MiB' });
    expect(sizeForForm(104_857_600)).toEqual({ amount: '100', unit: 'MiB' });
    expect(sizeForForm(10_000_000)).toEqual({ amount: '10000000', unit: 'bytes' });
    expect(sizeForForm(undefined)).toEqual({ amount: '', unit: 'MiB' });
  });

  it('compares sizes that differ by a byte as different', () => {
    const [before, after] = [10_000_000, 10_000_269].map((bytes) => shownValue('limits.max_upload_bytes', bytes));
    expect(before).not.toBe(after);
    expect(after).toBe('9.5 MiB (10,000,269 bytes)');
    expect(shownValue('limits.max_upload_bytes', 50 * 1024 ** 2)).toBe('50.0 MiB');
  });
});
