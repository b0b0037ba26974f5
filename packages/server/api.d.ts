// The types of dist/api.js: its source, server/exports/api.ts (installed, this file sits in node_modules/@wgs/server/).
export * from '../../../server/exports/api';
