import type { Engine } from '../engine';
import { generateLocalCode } from './code';
import { renderImage } from './image';
import { synthesizeSpeech } from './speech';
import { generateLocalText } from './text';
import { transcribeAudio } from './transcribe';
import { extractVideoFrame, renderVideo } from './video';

/** The built-in engine: offline and deterministic (see docs/local-engine.md for its limits). */
export const localEngine: Engine = {
  name: 'local',
  generateText: async (task) => generateLocalText(task),
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
