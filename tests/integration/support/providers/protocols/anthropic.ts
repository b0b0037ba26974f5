import { startFakeProviderServer, type FakeProviderServer } from '../fake-protocol-server';
import { FAKE_CODE } from './media-samples';

// Anthropic's Messages API (POST {base}/messages): text blocks; a structured answer as JSON text
// (output_config.format, Claude 4.5 and later) or as the `json` tool's input (older models).

export const fakeClaudeText = (model: string) => `claude-style answer from ${model}`;

export function startAnthropicFake(): Promise<FakeProviderServer> {
  return startFakeProviderServer((request) => {
    if (request.method !== 'POST' || !request.path.endsWith('/messages')) return undefined;
    const model = String(request.json?.model ?? 'unknown');
    const jsonTool = (request.json?.tools as { name?: string }[] | undefined)?.some((tool) => tool.name === 'json');
    const structured = request.json?.output_config?.format !== undefined;
    const content = jsonTool
      ? [{ type: 'tool_use', id: 'toolu_fake', name: 'json', input: FAKE_CODE }]
      : [{ type: 'text', text: structured ? JSON.stringify(FAKE_CODE) : fakeClaudeText(model) }];
    return {
      json: {
        id: 'msg_fake',
        type: 'message',
        role: 'assistant',
        model,
        content,
        stop_reason: jsonTool ? 'tool_use' : 'end_turn',
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 7 },
      },
    };
  });
}
