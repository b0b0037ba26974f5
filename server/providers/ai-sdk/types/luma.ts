import { createLuma } from '@ai-sdk/luma';
import type { ProviderModule } from '../provider-module';

export const lumaModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createLuma({ baseURL, apiKey, fetch });
    return { imageModel: (id) => provider.image(id) };
  },
};
