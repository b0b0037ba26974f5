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

export type UploadPurpose = 'image_input' | 'video_input' | 'audio_input';

/** The upload purposes each upload-taking operation accepts as its input (CONTRACT.md §5). */
export const INPUT_UPLOAD_PURPOSES = {
  'images.generate': ['image_input'],
  'videos.generate': ['image_input', 'video_input'],
  'audio.transcribe': ['audio_input', 'video_input'],
} as const satisfies Partial<Record<Operation, readonly UploadPurpose[]>>;
