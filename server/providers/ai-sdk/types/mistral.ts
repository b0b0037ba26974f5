import { createMistral } from '@ai-sdk/mistral';
import type { ProviderModule } from '../provider-module';

// Mistral's speech takes no language (refused at apply time, see provider-types.ts).
export const mistralModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createMistral({ baseURL, apiKey, fetch });
    return { languageModel: (id) => provider.languageModel(id), speechModel: (id) => provider.speech(id) };
  },
  speechArgs: (task) => ({ voice: task.voice, outputFormat: task.format }),
};
