import { createXai } from '@ai-sdk/xai';
import type { ProviderModule } from '../provider-module';

export const xaiModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createXai({ baseURL, apiKey, fetch });
    return {
      languageModel: (id) => provider.languageModel(id),
      imageModel: (id) => provider.imageModel(id),
      videoModel: (id) => provider.videoModel(id),
    };
  },
};
