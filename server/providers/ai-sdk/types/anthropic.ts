import { createAnthropic } from '@ai-sdk/anthropic';
import type { ProviderModule } from '../provider-module';

export const anthropicModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createAnthropic({ baseURL, apiKey, fetch });
    return { languageModel: (id) => provider.languageModel(id) };
  },
};
