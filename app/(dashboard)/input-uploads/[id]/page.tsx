import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { Card, DetailList } from '@/components/ui/card';
import { formatBytes, formatDate } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller, orNotFound } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Upload' };

export default async function UploadPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const { caller } = await dashboardCaller(`/input-uploads/${id}`);
  const upload = await orNotFound(caller.uploads.get({ id }));
  return (
    <div className="stack">
      <PageHeader title={`Upload ${upload.id}`} back={{ href: '/input-uploads', label: 'Uploads' }} />
      <Card title="Details">
        <DetailList
          items={[
            ['Status', <StatusBadge key="status" status={upload.status} />],
            ['Purpose', upload.purpose],
            ['File name', upload.filename],
            ['Type', upload.mime_type],
            ['Declared size', formatBytes(upload.size_bytes)],
            ['Received size', formatBytes(upload.received_bytes)],
            ['Declared SHA-256', <code key="sha">{upload.sha256}</code>],
            ['Received SHA-256', upload.received_sha256 ? <code key="rsha">{upload.received_sha256}</code> : '—'],
            ['Key', <Link key="key" href={`/keys/${upload.api_key_id}`}><code>{upload.key_prefix}…</code></Link>],
            ['Created', formatDate(upload.created_at)],
            ['Expires', formatDate(upload.expires_at)],
            ['Verified', formatDate(upload.verified_at)],
          ]}
        />
      </Card>
    </div>
  );
}
