// `@wgs/server/api`: the service's app (the public surfaces and the probes), for the route files
// through which Next hands it requests (`next dev`, Vercel, `npm start --v1-through-next`).
// packages/server/README.md says how this package is built and why Next loads it unbundled.
export { serviceApp } from '../surfaces/service-app';
