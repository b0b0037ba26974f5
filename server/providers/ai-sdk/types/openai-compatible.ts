import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { ProviderModule } from '../provider-module';

// vLLM, Ollama, LM Studio, Together, OpenRouter, ...: chat completions and images at base_url.
export const openAiCompatibleModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createOpenAICompatible({ name: 'openai-compatible', baseURL: baseURL!, apiKey, fetch });
    return { languageModel: (id) => provider.chatModel(id), imageModel: (id) => provider.imageModel(id) };
  },
};
