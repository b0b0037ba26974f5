import { createDeepSeek } from '@ai-sdk/deepseek';
import type { ProviderModule } from '../provider-module';

export const deepseekModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createDeepSeek({ baseURL, apiKey, fetch });
    return { languageModel: (id) => provider.languageModel(id) };
  },
};
