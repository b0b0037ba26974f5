import { createElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ApiExamples } from '@/components/sales/api-examples';

// The portal showed a starter key `client.chat.completions.create({ model: 'audio.speech' })`, its
// package's first operation, which the OpenAI-compatible API answers 404 (portal audit).

const urls = { v1: 'https://api.example.com/v1', openai: 'https://api.example.com/openai/v1' };
const shown = (operations: string[]) => renderToStaticMarkup(createElement(ApiExamples, { urls, operations }));

describe('the key examples (ApiExamples)', () => {
  it("calls the first chat operation the package sells, on both APIs, whatever the operations' order", () => {
    const html = shown(['audio.speech', 'images.generate', 'code.generate', 'text.generate']);
    expect(html).toContain('model: &#x27;text.generate&#x27;');
    expect(html).toContain('https://api.example.com/v1/text/generate');
    const code = shown(['audio.speech', 'code.generate']);
    expect(code).toContain('model: &#x27;code.generate&#x27;');
    expect(code).toContain('https://api.example.com/v1/code/generate');
  });

  it('shows no chat example for a package that sells no chat operation, naming its operations', () => {
    const html = shown(['audio.speech', 'images.generate']);
    expect(html).not.toContain('chat.completions');
    expect(html).not.toContain('curl');
    expect(html).toContain('(audio.speech, images.generate)');
  });
});
