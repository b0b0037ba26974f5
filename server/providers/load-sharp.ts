import type sharpModule from 'sharp';

// sharp (libvips) is loaded on the first image or video call, not at start: ~19 MB of resident
// memory that a server answering only text, code and audio never needs.

let loading: Promise<typeof sharpModule> | undefined;

export function loadSharp(): Promise<typeof sharpModule> {
  loading ??= import('sharp').then((module) => {
    // libvips' operation cache (up to 50 MB by default) never hits here: every image is new.
    module.default.cache(false);
    return module.default;
  });
  return loading;
}
