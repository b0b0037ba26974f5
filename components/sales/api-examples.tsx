import { Card, DetailList } from '@/components/ui/card';

// Where a key is used: the service's own /v1 and the OpenAI-compatible /openai/v1, each with a short
// example a customer can paste (docs/api.md, docs/openai-compatible.md). The key is never written
// into them: they read it from WGS_API_KEY.

export interface BaseUrls {
  v1: string;
  openai: string;
}

function examples(urls: BaseUrls, model: string) {
  const curl = [
    `curl ${urls.v1}/text/generate \\`,
    '  -H "Authorization: Bearer $WGS_API_KEY" -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: $(uuidgen)" \\',
    `  -d '{"input": "Write a haiku about the sea"}'`,
  ].join('\n');
  const sdk = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${urls.openai}', apiKey: process.env.WGS_API_KEY });`,
    'const answer = await client.chat.completions.create({',
    `  model: '${model}',`,
    "  messages: [{ role: 'user', content: 'Write a haiku about the sea' }],",
    '});',
  ].join('\n');
  return { curl, sdk };
}

/** Both base URLs, a curl call of /v1 and an OpenAI SDK call of /openai/v1 (`model`: a model the key's package sells). */
export function ApiExamples({ urls, model = 'text.generate' }: { urls: BaseUrls; model?: string }) {
  const { curl, sdk } = examples(urls, model);
  return (
    <Card title="Using your key" id="api-examples">
      <div className="stack" data-testid="api-examples">
        <DetailList
          items={[
            ['Service API', <code key="v1">{urls.v1}</code>],
            ['OpenAI-compatible API', <code key="openai">{urls.openai}</code>],
          ]}
        />
        <p>
          With <code>curl</code>, on the service&apos;s own API (<a href="/docs">reference</a>):
        </p>
        <pre>
          <code>{curl}</code>
        </pre>
        <p>
          With the OpenAI SDK you already use, on the OpenAI-compatible API (models are the package&apos;s operations; see{' '}
          <code>GET /openai/v1/models</code>):
        </p>
        <pre>
          <code>{sdk}</code>
        </pre>
      </div>
    </Card>
  );
}
