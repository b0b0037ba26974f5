import type { Metadata } from 'next';
import Link from 'next/link';
import { StatusBadge } from '@/components/ui/badge';
import { Card, DetailList } from '@/components/ui/card';
import { formatDate, formatNumber } from '@/components/ui/format';
import { PageHeader } from '@/components/ui/page-header';
import { dashboardCaller, orNotFound } from '@/server/trpc/server-caller';

export const metadata: Metadata = { title: 'Job' };

export default async function JobPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const { caller } = await dashboardCaller(`/jobs/${id}`);
  const job = await orNotFound(caller.jobs.get({ id }));
  return (
    <div className="stack">
      <PageHeader title={`Job ${job.id}`} back={{ href: '/jobs', label: 'Jobs' }} />
      <div className="grid">
        <Card title="Details">
          <DetailList
            items={[
              ['Status', <StatusBadge key="status" status={job.status} />],
              ['Operation', job.operation],
              ['Engine', <code key="engine">{job.engine}</code>],
              ['Units', formatNumber(job.units)],
              ['Attempts', formatNumber(job.attempts)],
              ['Key', <Link key="key" href={`/keys/${job.api_key_id}`}><code>{job.key_prefix}…</code></Link>],
              ['Request', <code key="request">{job.request_id}</code>],
              ['Result type', job.result_mime_type ?? '—'],
              ['Error', job.error_code ? `${job.error_code}: ${job.error_message ?? ''}` : '—'],
              ['Created', formatDate(job.created_at)],
              ['Updated', formatDate(job.updated_at)],
            ]}
          />
        </Card>
        <Card title="Input">
          <DetailList
            items={[
              ['Prompt', job.input.prompt],
              ['Input upload', job.input.input_upload_id ? <Link key="upload" href={`/uploads/${job.input.input_upload_id}`}><code>{job.input.input_upload_id}</code></Link> : '—'],
            ]}
          />
        </Card>
      </div>
    </div>
  );
}
