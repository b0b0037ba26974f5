import { z } from 'zod';
import { TEXT_OUTPUT_FORMATS, IMAGE_OUTPUT_FORMATS, SPEECH_OUTPUT_FORMATS, TIMESTAMP_MODES } from './values';
import { errorResponseSchema } from './errors';
import { described, language, packageSetting, text, timestamp, uploadId } from './fields';

// Request and response schemas of the synchronous generation routes (interface-v1.md §2.1, §4).
// Each request's example is a valid request for any package that sells its operation (package
// settings left to their defaults): /docs sends it as is.

export const textGenerateRequest = z
  .strictObject({
    input: text(1, 64_000),
    context: text(0, 16_000).optional(),
    output_format: packageSetting(z.enum(TEXT_OUTPUT_FORMATS), 'Format of output.text.', '`text`').optional(),
  })
  .meta({ id: 'TextGenerateRequest', example: { input: 'Summarise why idempotency keys matter for paid APIs.' } });

export const codeGenerateRequest = z
  .strictObject({
    input: text(1, 64_000),
    language: text(1, 80).optional(),
    requirements: z.array(text(1, 500)).max(30, 'must have at most 30 entries').optional(),
  })
  .meta({
    id: 'CodeGenerateRequest',
    example: {
      input: 'Write a function that says whether a string is a palindrome.',
      language: 'TypeScript',
      requirements: ['ignore case and spaces'],
    },
  });

export const imagesGenerateRequest = z
  .strictObject({
    prompt: text(1, 32_000),
    input_upload_id: described(
      uploadId,
      "A verified image upload of the calling key, when the key's package takes input uploads (else 422 `not_allowed_by_package`).",
    ).optional(),
    style: packageSetting(text(1, 120), 'Image style.').optional(),
    output_format: packageSetting(z.enum(IMAGE_OUTPUT_FORMATS), 'Image format.', '`png`').optional(),
  })
  .meta({ id: 'ImagesGenerateRequest', example: { prompt: 'A lighthouse on a cliff at dawn, in watercolour.' } });

export const audioSpeechRequest = z
  .strictObject({
    text: text(1, 24_000),
    voice: packageSetting(text(1, 80), 'Voice.').optional(),
    language: packageSetting(language, 'Language tag (matched in any case).').optional(),
    output_format: packageSetting(z.enum(SPEECH_OUTPUT_FORMATS), 'Audio format.', '`mp3`').optional(),
  })
  .meta({ id: 'AudioSpeechRequest', example: { text: 'Your order has shipped and arrives on Thursday.' } });

export const audioTranscribeRequest = z
  .strictObject({
    input_upload_id: uploadId,
    language: packageSetting(language, 'Language of the audio (matched in any case).').optional(),
    timestamps: packageSetting(
      z.enum(TIMESTAMP_MODES),
      'Whether output.segments is filled (`segment`) or empty (`none`).',
      '`segment`',
    ).optional(),
  })
  .meta({ id: 'AudioTranscribeRequest', example: { input_upload_id: 'upl_3Yb7QmZk9pW2xN4cR8tL1vHd' } });

export const textOutput = z.strictObject({ text: z.string() }).meta({ id: 'TextOutput' });
export const codeOutput = z.strictObject({ code: z.string(), explanation: z.string() }).meta({ id: 'CodeOutput' });
export const fileOutput = z
  .strictObject({ url: z.string().meta({ format: 'uri', description: 'Short-lived private signed URL.' }), expires_at: timestamp })
  .meta({ id: 'FileOutput' });
export const transcriptOutput = z
  .strictObject({
    text: z.string(),
    segments: z.array(z.strictObject({ start: z.number().min(0), end: z.number().min(0), text: z.string() })),
  })
  .meta({ id: 'TranscriptOutput' });

export const usageSchema = z
  .strictObject({
    charged_units: z.number().int().min(0).meta({ description: 'Units charged by this request.' }),
    remaining_units: z.number().int().min(0).meta({
      description:
        "Units left in the key's quota after this request. Units reserved by the key's other requests still running are not counted as left until they settle (a failed one gives its units back).",
    }),
  })
  .meta({ id: 'Usage' });

export function generationResult<O extends z.ZodType>(operation: string, output: O, id: string) {
  return z
    .strictObject({
      id: z.string().uuid().meta({ description: 'Identifier of the usage event.' }),
      object: z.literal('generation'),
      operation: z.literal(operation),
      output,
      usage: usageSchema,
    })
    .meta({ id });
}

export const textGenerateResponse = generationResult('text.generate', textOutput, 'TextGeneration');
export const codeGenerateResponse = generationResult('code.generate', codeOutput, 'CodeGeneration');

/**
 * One event of a streamed text.generate answer (Accept: text/event-stream), as its `event:` name
 * and the JSON of its `data:` line: deltas, then exactly one `done` or one `error`.
 */
export const textStreamEvent = z
  .discriminatedUnion('event', [
    z
      .strictObject({ event: z.literal('delta'), data: z.strictObject({ text: z.string().min(1) }) })
      .meta({ description: 'The next piece of the text, in order; the pieces joined are `output.text` of `done`.' }),
    z.strictObject({ event: z.literal('done'), data: textGenerateResponse }).meta({
      description:
        'The result, exactly as the JSON answer would be (the units are charged before it is written); always the last event of a stream that succeeded.',
    }),
    z.strictObject({ event: z.literal('error'), data: errorResponseSchema }).meta({
      description:
        'The answer did not end in `done`; always the last event. Before any `delta` (`provider_unavailable`): nothing is charged and the Idempotency-Key is free for a retry. After one (`output_interrupted`: the provider failed, the deadline, text that fails `output_format`): the units were charged, and a retry with the same Idempotency-Key replays this stream.',
    }),
  ])
  .meta({ id: 'TextStreamEvent' });
export const imagesGenerateResponse = generationResult('images.generate', fileOutput, 'ImageGeneration');
export const audioSpeechResponse = generationResult('audio.speech', fileOutput, 'SpeechGeneration');
export const audioTranscribeResponse = generationResult('audio.transcribe', transcriptOutput, 'TranscriptionGeneration');

export type TextGenerateRequest = z.infer<typeof textGenerateRequest>;
export type CodeGenerateRequest = z.infer<typeof codeGenerateRequest>;
export type ImagesGenerateRequest = z.infer<typeof imagesGenerateRequest>;
export type AudioSpeechRequest = z.infer<typeof audioSpeechRequest>;
export type AudioTranscribeRequest = z.infer<typeof audioTranscribeRequest>;
