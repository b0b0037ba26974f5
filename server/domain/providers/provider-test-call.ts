import type { Engine } from '../../providers/engine';
import type { Operation } from '../operations';

// The cheapest real call each operation allows: a few words of text, a quarter second of
// silence to transcribe, one word to speak; an image or a video only for types that do nothing
// cheaper. Whatever the provider answers is discarded: only whether and how fast it answered matters.

export const TEST_OPERATION_ORDER: readonly Operation[] = [
  'text.generate',
  'code.generate',
  'audio.transcribe',
  'audio.speech',
  'images.generate',
  'videos.generate',
];

/** The operation a test of this provider type calls: the first of TEST_OPERATION_ORDER it serves. */
export function testOperationOf(operations: readonly Operation[]): Operation | undefined {
  return TEST_OPERATION_ORDER.find((operation) => operations.includes(operation));
}

/** 0.25 s of 16 kHz mono 16-bit silence, as a WAV file. */
function silentWav(): Buffer {
  const samples = 4000;
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + samples * 2, 4);
  header.write('WAVEfmt ', 8);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16_000, 24);
  header.writeUInt32LE(32_000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(samples * 2, 40);
  return Buffer.concat([header, Buffer.alloc(samples * 2)]);
}

export async function callForTest(engine: Engine, operation: Operation, signal: AbortSignal): Promise<void> {
  switch (operation) {
    case 'text.generate':
      await engine.generateText({ input: 'Reply with the single word OK.', outputFormat: 'text' }, signal);
      return;
    case 'code.generate':
      await engine.generateCode({ input: 'Return the number 1.', requirements: [] }, signal);
      return;
    case 'audio.transcribe':
      await engine.transcribe({ bytes: silentWav(), mimeType: 'audio/wav', filename: 'test.wav', timestamps: 'none' }, signal);
      return;
    case 'audio.speech':
      await engine.synthesizeSpeech({ text: 'OK', format: 'mp3' }, signal);
      return;
    case 'images.generate':
      await engine.generateImage({ prompt: 'a small red dot on white', format: 'png' }, signal);
      return;
    case 'videos.generate':
      await engine.generateVideo({ prompt: 'a small red dot on white' }, signal);
  }
}
