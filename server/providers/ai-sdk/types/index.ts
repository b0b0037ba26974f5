import type { ProviderType } from '../../../contract/provider-types';
import type { ProviderModule } from '../provider-module';

// Every provider type, served through the AI SDK, each loaded on first use: a deployment that
// sells only `local` or one provider loads no other SDK.
export type SdkProviderType = ProviderType;

export const PROVIDER_MODULE_LOADERS: Readonly<Record<SdkProviderType, () => Promise<ProviderModule>>> = {
  openai: async () => (await import('./openai')).openaiModule,
  'openai-compatible': async () => (await import('./openai-compatible')).openAiCompatibleModule,
  anthropic: async () => (await import('./anthropic')).anthropicModule,
  google: async () => (await import('./google')).googleModule,
  xai: async () => (await import('./xai')).xaiModule,
  mistral: async () => (await import('./mistral')).mistralModule,
  groq: async () => (await import('./groq')).groqModule,
  deepseek: async () => (await import('./deepseek')).deepseekModule,
  azure: async () => (await import('./azure')).azureModule,
  'amazon-bedrock': async () => (await import('./amazon-bedrock')).amazonBedrockModule,
  fal: async () => (await import('./fal')).falModule,
  replicate: async () => (await import('./replicate')).replicateModule,
  luma: async () => (await import('./luma')).lumaModule,
  elevenlabs: async () => (await import('./elevenlabs')).elevenlabsModule,
  deepgram: async () => (await import('./deepgram')).deepgramModule,
  assemblyai: async () => (await import('./assemblyai')).assemblyaiModule,
  gateway: async () => (await import('./gateway')).gatewayModule,
};

export function loadProviderModule(type: SdkProviderType): Promise<ProviderModule> {
  return PROVIDER_MODULE_LOADERS[type]();
}
