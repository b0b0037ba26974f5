import { createAzure } from '@ai-sdk/azure';
import { primaryLanguage, type ProviderModule } from '../provider-module';

// Azure OpenAI: the model id is the deployment name; resource_name or base_url says where.
export const azureModule: ProviderModule = {
  create: ({ baseURL, apiKey, extras, fetch }) => {
    const provider = createAzure({
      ...(baseURL ? { baseURL } : { resourceName: extras.resource_name }),
      ...(extras.api_version ? { apiVersion: extras.api_version } : {}),
      apiKey,
      fetch,
    });
    return {
      languageModel: (id) => provider.chat(id),
      imageModel: (id) => provider.imageModel(id),
      speechModel: (id) => provider.speech(id),
      transcriptionModel: (id) => provider.transcription(id),
    };
  },
  speechArgs: (task) => ({ voice: task.voice, outputFormat: task.format }),
  transcriptionOptions: (task) => ({
    openai: {
      ...(task.language ? { language: primaryLanguage(task.language) } : {}),
      ...(task.timestamps === 'segment' ? { timestampGranularities: ['segment'] } : {}),
    },
  }),
};
