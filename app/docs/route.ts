import { ApiReference } from '@scalar/nextjs-api-reference';

// The human reference of /v1, rendered by Scalar from /v1/openapi.json with its script
// served by this app (no CDN: the product works offline).
export const GET = ApiReference({
  url: '/v1/openapi.json',
  cdn: '/docs/scalar.js',
  pageTitle: 'Workflow Generation Service API',
  withDefaultFonts: false,
  hideClientButton: true,
  // Every operation but the document itself needs the API key: the page opens with it selected.
  authentication: { preferredSecurityScheme: 'bearer' },
  // Hosted extras that need Scalar's cloud: off, so the page is whole offline.
  showDeveloperTools: 'never',
  agent: { disabled: true },
});
