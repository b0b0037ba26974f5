import { createDeepgram } from '@ai-sdk/deepgram';
import type { ProviderModule } from '../provider-module';

// The SDK calls api.deepgram.com directly; base_url replaces that origin through the fetch.
// A speech model id names its voice and language (aura-2-thalia-en).
export const deepgramModule: ProviderModule = {
  apiHosts: ['api.deepgram.com'],
  create: ({ apiKey, fetch }) => {
    const provider = createDeepgram({ apiKey, fetch });
    return { speechModel: (id) => provider.speech(id), transcriptionModel: (id) => provider.transcription(id) };
  },
  speechArgs: (task) => ({ outputFormat: task.format }),
  transcriptionOptions: (task) => ({ deepgram: task.language ? { language: task.language } : { detectLanguage: true } }),
};
