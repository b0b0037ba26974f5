import { createElevenLabs } from '@ai-sdk/elevenlabs';
import { primaryLanguage, type ProviderModule } from '../provider-module';

// The SDK calls api.elevenlabs.io directly; base_url replaces that origin through the fetch.
const OUTPUT_FORMAT = { mp3: 'mp3_44100_128', wav: 'wav_44100' } as const;

export const elevenlabsModule: ProviderModule = {
  apiHosts: ['api.elevenlabs.io'],
  create: ({ apiKey, fetch }) => {
    const provider = createElevenLabs({ apiKey, fetch });
    return { speechModel: (id) => provider.speech(id), transcriptionModel: (id) => provider.transcription(id) };
  },
  speechArgs: (task) => ({ voice: task.voice, outputFormat: OUTPUT_FORMAT[task.format], language: primaryLanguage(task.language) }),
  transcriptionOptions: (task) => (task.language ? { elevenlabs: { languageCode: primaryLanguage(task.language) } } : undefined),
};
