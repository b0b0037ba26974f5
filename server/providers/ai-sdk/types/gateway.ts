import { createGateway } from '@ai-sdk/gateway';
import type { ProviderModule } from '../provider-module';

// Vercel AI Gateway: model ids name the upstream (anthropic/claude-sonnet-4.5, openai/gpt-image-1).
export const gatewayModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createGateway({ baseURL, apiKey, fetch });
    return {
      languageModel: (id) => provider.languageModel(id),
      imageModel: (id) => provider.imageModel(id),
      videoModel: (id) => provider.videoModel(id),
      speechModel: (id) => provider.speechModel(id),
      transcriptionModel: (id) => provider.transcriptionModel(id),
    };
  },
};
