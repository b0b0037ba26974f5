import { createGoogleGenerativeAI } from '@ai-sdk/google';
import type { ProviderModule } from '../provider-module';

// Gemini for text and code, Imagen/Gemini images, Veo video, Gemini transcription.
export const googleModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch }) => {
    const provider = createGoogleGenerativeAI({ baseURL, apiKey, fetch });
    return {
      languageModel: (id) => provider.languageModel(id),
      imageModel: (id) => provider.image(id),
      videoModel: (id) => provider.video(id),
      transcriptionModel: (id) => provider.transcription(id),
    };
  },
  transcriptionOptions: (task) => ({
    google: {
      ...(task.language ? { languageCodes: [task.language] } : {}),
      ...(task.timestamps === 'segment' ? { wordTimestamp: true } : {}),
    },
  }),
};
