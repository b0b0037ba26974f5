// The operations a package can sell, with the paths that serve them (interface-v1.md §1).
export const OPERATIONS = [
  'text.generate',
  'code.generate',
  'images.generate',
  'videos.generate',
  'audio.speech',
  'audio.transcribe',
] as const;

export type Operation = (typeof OPERATIONS)[number];

export const TEXT_OUTPUT_FORMATS = ['text', 'markdown', 'json'] as const;
export const IMAGE_OUTPUT_FORMATS = ['png', 'jpeg', 'webp'] as const;
export const SPEECH_OUTPUT_FORMATS = ['mp3', 'wav'] as const;
export const TIMESTAMP_MODES = ['none', 'segment'] as const;

/** Operations that take an uploaded input; a key with none of them may not create uploads. */
export const UPLOAD_TAKING_OPERATIONS: readonly Operation[] = ['images.generate', 'videos.generate', 'audio.transcribe'];
