// Installed as node_modules/@wgs/server/ (a copy: .npmrc's install-links), this is the
// repository's dist/api.js, compiled from server/exports/api.ts. See README.md.
export * from '../../../dist/api.js';
