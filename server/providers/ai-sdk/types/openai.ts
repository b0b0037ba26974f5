import { createOpenAI } from '@ai-sdk/openai';
import { PROVIDER_TYPE_INFO } from '../../../contract/provider-types';
import { primaryLanguage, type ProviderModule } from '../provider-module';
import { openAiVideoAdapter } from './openai-video';

// OpenAI, or any server speaking its whole API: chat completions (the SDK's chat model, not the
// responses API), images (edits for an input image), speech and transcription through
// @ai-sdk/openai; videos, which the SDK does not cover, through the official client.
export const openaiModule: ProviderModule = {
  create: ({ baseURL, apiKey, fetch, timeoutMs, maxRetries }) => {
    // The public default given here, so no OPENAI_BASE_URL of the environment can redirect it.
    const url = baseURL ?? PROVIDER_TYPE_INFO.openai.defaultBaseUrl;
    const provider = createOpenAI({ baseURL: url, apiKey, fetch });
    return {
      languageModel: (id) => provider.chat(id),
      imageModel: (id) => provider.image(id),
      speechModel: (id) => provider.speech(id),
      transcriptionModel: (id) => provider.transcription(id),
      videoAdapter: (id) => openAiVideoAdapter({ baseURL: url, apiKey, timeoutMs, maxRetries }, id),
    };
  },
  // Code in JSON mode, as the `openai` type always asked; system prompts as `system` messages for
  // every model (the SDK would say `developer` to reasoning models, which other servers refuse).
  codeOutput: 'json-mode',
  languageOptions: { openai: { systemMessageMode: 'system' } },
  imageOptions: (task) => ({ openai: { outputFormat: task.format } }),
  speechArgs: (task) => ({ voice: task.voice ?? 'alloy', outputFormat: task.format }),
  transcriptionOptions: (task) => ({
    openai: {
      ...(task.language ? { language: primaryLanguage(task.language) } : {}),
      ...(task.timestamps === 'segment' ? { timestampGranularities: ['segment'] } : {}),
    },
  }),
};
