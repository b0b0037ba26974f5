import { ProviderUnavailableError, type Engine, type TextDeltaSink, type TextResult, type TextTask } from '../engine';
import { generateLocalCode } from './code';
import { renderImage } from './image';
import { synthesizeSpeech } from './speech';
import { generateLocalText } from './text';
import { transcribeAudio } from './transcribe';
import { extractVideoFrame, renderVideo } from './video';

/** A word with the blanks after it (or the blanks that open the text): the pieces of a streamed answer. */
const WORD_PIECE = /\s*\S+\s*|\s+/g;

/** The local answer in word-sized pieces, one per turn of the event loop, so an abort is seen between them. */
async function streamLocalText(task: TextTask, signal: AbortSignal, onDelta: TextDeltaSink): Promise<TextResult> {
  const answer = generateLocalText(task);
  for (const piece of answer.text.match(WORD_PIECE) ?? []) {
    await new Promise((resolve) => setImmediate(resolve));
    if (signal.aborted) throw new ProviderUnavailableError('the streamed answer was cut off', 5, { kind: 'timeout' });
    onDelta(piece);
  }
  return answer;
}

/** The built-in engine: offline and deterministic (see docs/local-engine.md for its limits). */
export const localEngine: Engine = {
  name: 'local',
  generateText: async (task) => generateLocalText(task),
  streamText: streamLocalText,
  generateCode: async (task) => generateLocalCode(task),
  generateImage: async (task) => {
    const image = await renderImage({ prompt: task.prompt, style: task.style, format: task.format, inputImage: task.inputImage });
    return { bytes: image.bytes, mimeType: image.mimeType, usage: { images: 1, imageSize: `${image.width}x${image.height}` } };
  },
  synthesizeSpeech: async (task) => {
    const speech = await synthesizeSpeech({ text: task.text, voice: task.voice, language: task.language, format: task.format });
    return { bytes: speech.bytes, mimeType: speech.mimeType, usage: { characters: task.text.length } };
  },
  transcribe: async (task) =>
    transcribeAudio({ bytes: task.bytes, mimeType: task.mimeType, language: task.language, timestamps: task.timestamps }),
  generateVideo: async (task) => {
    // A video input seeds the render with its first frame.
    const inputImage =
      task.inputImage && task.inputMimeType?.startsWith('video/')
        ? await extractVideoFrame(task.inputImage, task.inputMimeType)
        : task.inputImage;
    const video = await renderVideo({ prompt: task.prompt, inputImage });
    return { bytes: video.bytes, mimeType: video.mimeType, usage: { videoSeconds: video.seconds } };
  },
};
