import { createFal } from '@ai-sdk/fal';
import { primaryLanguage, type ProviderModule } from '../provider-module';

// fal honours baseURL for images only; its speech, transcription and video call fal.run and
// queue.fal.run directly, so base_url replaces both hosts through the fetch (images included:
// https://fal.run/{model} is exactly `${baseURL}/${model}`).
export const falModule: ProviderModule = {
  apiHosts: ['fal.run', 'queue.fal.run'],
  create: ({ apiKey, fetch }) => {
    const provider = createFal({ apiKey, fetch });
    return {
      imageModel: (id) => provider.image(id),
      videoModel: (id) => provider.video(id),
      speechModel: (id) => provider.speech(id),
      transcriptionModel: (id) => provider.transcription(id),
    };
  },
  // fal's flux models answer JPEG unless asked; ask for what the customer asked (webp is converted).
  imageOptions: (task) => ({ fal: { outputFormat: task.format === 'jpeg' ? 'jpeg' : 'png' } }),
  speechArgs: (task) => ({ voice: task.voice }),
  transcriptionOptions: (task) => (task.language ? { fal: { language: primaryLanguage(task.language) } } : undefined),
};
