/**
 * The browser the end-to-end tests and the bench's flame graph drive: Debian's headless build of
 * Chromium (package chromium-headless-shell, which .ci/run installs), or the one CHROMIUM_PATH names.
 */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
