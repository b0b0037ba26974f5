import { createGroq } from '@ai-sdk/groq';
import { primaryLanguage, type ProviderModule } from '../provider-module';

export const groqModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createGroq({ baseURL, apiKey, fetch });
    return { languageModel: (id) => provider.languageModel(id), transcriptionModel: (id) => provider.transcription(id) };
  },
  transcriptionOptions: (task) => ({
    groq: {
      ...(task.language ? { language: primaryLanguage(task.language) } : {}),
      ...(task.timestamps === 'segment' ? { responseFormat: 'verbose_json', timestampGranularities: ['segment'] } : {}),
    },
  }),
};
