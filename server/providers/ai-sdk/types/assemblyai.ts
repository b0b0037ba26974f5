import { createAssemblyAI } from '@ai-sdk/assemblyai';
import { primaryLanguage, type ProviderModule } from '../provider-module';

// The SDK calls api.assemblyai.com directly; base_url replaces that origin through the fetch.
export const assemblyaiModule: ProviderModule = {
  apiHosts: ['api.assemblyai.com'],
  create: ({ apiKey, fetch }) => {
    const provider = createAssemblyAI({ apiKey, fetch });
    return { transcriptionModel: (id) => provider.transcription(id) };
  },
  transcriptionOptions: (task) => (task.language ? { assemblyai: { languageCode: primaryLanguage(task.language) } } : undefined),
};
