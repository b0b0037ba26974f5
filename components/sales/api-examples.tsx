import { Card, DetailList } from '@/components/ui/card';

// Where a key is used: the service's own /v1 and the OpenAI-compatible /openai/v1, each with a short
// example a customer can paste (docs/api.md, docs/openai-compatible.md). The key is never written
// into them: they read it from WGS_API_KEY.

export interface BaseUrls {
  v1: string;
  openai: string;
}

/** The chat operations an example can call on both APIs, in the order one is chosen. */
const CHAT_OPERATIONS = [
  { operation: 'text.generate', path: 'text/generate', prompt: 'Write a haiku about the sea' },
  { operation: 'code.generate', path: 'code/generate', prompt: 'A function that reverses a string' },
] as const;

function examples(urls: BaseUrls, chat: (typeof CHAT_OPERATIONS)[number]) {
  const curl = [
    `curl ${urls.v1}/${chat.path} \\`,
    '  -H "Authorization: Bearer $WGS_API_KEY" -H "Content-Type: application/json" \\',
    '  -H "Idempotency-Key: $(uuidgen)" \\',
    `  -d '{"input": "${chat.prompt}"}'`,
  ].join('\n');
  const sdk = [
    "import OpenAI from 'openai';",
    '',
    `const client = new OpenAI({ baseURL: '${urls.openai}', apiKey: process.env.WGS_API_KEY });`,
    'const answer = await client.chat.completions.create({',
    `  model: '${chat.operation}',`,
    `  messages: [{ role: 'user', content: '${chat.prompt}' }],`,
    '});',
  ].join('\n');
  return { curl, sdk };
}

/**
 * Both base URLs, a curl call of /v1 and an OpenAI SDK chat call of /openai/v1, of the first chat
 * operation `operations` sells (a package that sells neither is pointed to the reference: a chat
 * example of an operation it does not sell would answer 403 and 404).
 */
export function ApiExamples({ urls, operations = ['text.generate'] }: { urls: BaseUrls; operations?: readonly string[] }) {
  const chat = CHAT_OPERATIONS.find((candidate) => operations.includes(candidate.operation));
  const shown = chat ? examples(urls, chat) : undefined;
  return (
    <Card title="Using your key" id="api-examples">
      <div className="stack" data-testid="api-examples">
        <DetailList
          items={[
            ['Service API', <code key="v1">{urls.v1}</code>],
            ['OpenAI-compatible API', <code key="openai">{urls.openai}</code>],
          ]}
        />
        {shown ? (
          <>
            <p>
              With <code>curl</code>, on the service&apos;s own API (<a href="/docs">reference</a>):
            </p>
            {/* Focusable: a narrow screen scrolls it sideways, also from the keyboard. */}
            <pre tabIndex={0} aria-label="curl example">
              <code>{shown.curl}</code>
            </pre>
            <p>
              With the OpenAI SDK you already use, on the OpenAI-compatible API (models are the package&apos;s operations; see{' '}
              <code>GET /openai/v1/models</code>):
            </p>
            <pre tabIndex={0} aria-label="OpenAI SDK example">
              <code>{shown.sdk}</code>
            </pre>
          </>
        ) : (
          <p>
            Each call of your package ({operations.join(', ')}) is described in the <a href="/docs">reference</a>; on the OpenAI-compatible
            API, <code>GET /openai/v1/models</code> lists them.
          </p>
        )}
      </div>
    </Card>
  );
}
