import type { Metadata } from 'next';
import { cache } from 'react';
import Link from 'next/link';
import { MediaPreview } from '@/components/ui/media-preview';
import { StatusBadge } from '@/components/ui/badge';
import { Card, DetailList } from '@/components/ui/card';
import { formatDate, formatNumber } from '@/components/ui/format';
import { jobUnits } from '@/components/jobs/job-units';
import { MonoId } from '@/components/ui/mono-id';
import { PageHeader } from '@/components/ui/page-header';
import { usageRowHref } from '@/server/contract/dashboard/usage-filters';
import { orNotFound, recordTitle } from '@wgs/server/next';
import { dashboardCaller } from '@/app/(dashboard)/operator';

/** The page's record, read once for its title and its body. */
const readJob = cache(async (id: string) => (await dashboardCaller(`/jobs/${id}`)).caller.jobs.get({ id }));

export async function generateMetadata(props: { params: Promise<{ id: string }> }): Promise<Metadata> {
  return recordTitle(readJob((await props.params).id), 'Job', (job) => job.id);
}

export default async function JobPage(props: { params: Promise<{ id: string }> }) {
  const { id } = await props.params;
  const { caller } = await dashboardCaller(`/jobs/${id}`);
  const job = await orNotFound(readJob(id));
  const result = await caller.jobs.resultLink({ id: job.id });
  return (
    <div className="stack">
      <PageHeader title="Job" description={<MonoId value={job.id} what="job id" full />} back={{ href: '/jobs', label: 'Jobs' }} />
      {result ? (
        <Card title="Result">
          <MediaPreview link={result} name={`${job.id}.mp4`} label={`Video of job ${job.id}`} />
        </Card>
      ) : job.status === 'succeeded' ? (
        <Card title="Result">
          <p className="muted">
            The video was deleted <code>OUTPUT_RETENTION_HOURS</code> after it was made: its URLs answer 404.
          </p>
        </Card>
      ) : null}
      <div className="grid">
        <Card title="Details">
          <DetailList
            items={[
              ['Status', <StatusBadge key="status" status={job.status} />],
              ['Operation', job.operation],
              ['Engine', <code key="engine">{job.engine}</code>],
              ['Units', jobUnits(job)],
              ['Attempts', formatNumber(job.attempts)],
              ['Key', <MonoId key="key" value={job.key_prefix} what="key prefix" href={`/keys/${job.api_key_id}`} full />],
              ['Request id', <MonoId key="request" value={job.request_id} what="request id" href={usageRowHref(job.request_id)} full />],
              [
                'Usage',
                <Link key="usage" href={usageRowHref(job.request_id)}>
                  Usage row of this request
                </Link>,
              ],
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
              [
                'Input upload',
                job.input.input_upload_id ? (
                  <MonoId
                    key="upload"
                    value={job.input.input_upload_id}
                    what="upload id"
                    href={`/input-uploads/${job.input.input_upload_id}`}
                  />
                ) : (
                  '—'
                ),
              ],
            ]}
          />
        </Card>
      </div>
    </div>
  );
}
