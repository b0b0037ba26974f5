// Installed as node_modules/@wgs/server/ (a copy: .npmrc's install-links), this is the
// repository's dist/next.js, compiled from server/exports/next.ts. See README.md.
export * from '../../../dist/next.js';
