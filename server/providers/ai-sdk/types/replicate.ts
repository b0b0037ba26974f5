import { createReplicate } from '@ai-sdk/replicate';
import type { ProviderModule } from '../provider-module';

export const replicateModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createReplicate({ baseURL, apiToken: apiKey, fetch });
    return { imageModel: (id) => provider.image(id as never), videoModel: (id) => provider.video(id as never) };
  },
};
