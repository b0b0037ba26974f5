import type { ProviderType } from '../../provider-types';
import type { ProviderModule } from '../provider-module';
import { amazonBedrockModule } from './amazon-bedrock';
import { anthropicModule } from './anthropic';
import { assemblyaiModule } from './assemblyai';
import { azureModule } from './azure';
import { deepgramModule } from './deepgram';
import { deepseekModule } from './deepseek';
import { elevenlabsModule } from './elevenlabs';
import { falModule } from './fal';
import { gatewayModule } from './gateway';
import { googleModule } from './google';
import { groqModule } from './groq';
import { lumaModule } from './luma';
import { mistralModule } from './mistral';
import { openAiCompatibleModule } from './openai-compatible';
import { replicateModule } from './replicate';
import { xaiModule } from './xai';

/** Every provider type served through the AI SDK (`openai` keeps the official client). */
export const PROVIDER_MODULES: Readonly<Record<Exclude<ProviderType, 'openai'>, ProviderModule>> = {
  'openai-compatible': openAiCompatibleModule,
  anthropic: anthropicModule,
  google: googleModule,
  xai: xaiModule,
  mistral: mistralModule,
  groq: groqModule,
  deepseek: deepseekModule,
  azure: azureModule,
  'amazon-bedrock': amazonBedrockModule,
  fal: falModule,
  replicate: replicateModule,
  luma: lumaModule,
  elevenlabs: elevenlabsModule,
  deepgram: deepgramModule,
  assemblyai: assemblyaiModule,
  gateway: gatewayModule,
};
