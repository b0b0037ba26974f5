import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ProviderModule } from '../provider-module';

// vLLM, Ollama, LM Studio, Together, OpenRouter, ...: chat completions and images at base_url. A
// stream is asked for its usage (`stream_options.include_usage`, as OpenAI streams report it); a
// server that reports none anyway has its usage estimated (domain/generation/call-engine.ts).
export const openAiCompatibleModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: baseURL!, apiKey, fetch, includeUsage: true });
    return { languageModel: (id) => provider.chatModel(id), imageModel: (id) => provider.imageModel(id) };
  },
};
