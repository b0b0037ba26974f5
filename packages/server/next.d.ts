// The types of dist/next.js: its source, server/exports/next.ts (installed, this file sits in node_modules/@wgs/server/).
export * from '../../../server/exports/next';
