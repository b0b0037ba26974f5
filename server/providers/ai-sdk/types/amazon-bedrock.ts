import { createAmazonBedrock } from '@ai-sdk/amazon-bedrock';
import type { ProviderModule } from '../provider-module';

// Authenticated with a Bedrock API key (bearer), in the region the packages file names.
export const amazonBedrockModule: ProviderModule = {
  create: ({ baseURL, apiKey, extras, fetch }) => {
    const provider = createAmazonBedrock({ region: extras.region, baseURL, apiKey, fetch });
    return { languageModel: (id) => provider.languageModel(id), imageModel: (id) => provider.imageModel(id) };
  },
};
