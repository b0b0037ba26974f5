# The production image: one artefact for the app instances (CMD), the video workers and the
# migrate step (compose.yaml and deploy/kubernetes/ give each its command). No secret is baked
# in: every setting comes from the environment at run time (docs/configuration.md).
# tests/integration/container-image.test.ts performs these steps and runs the result.
# Both stages start from one Node image, pinned to its version and to that image's digest: a tag
# moved upstream changes nothing here (docs/deploy.md, "Pinned images").

# ---- build: every dependency, the Next build and the compiled entry points, then the dev dependencies pruned away ----
FROM node:22.22.0-bookworm-slim@sha256:dd9d21971ec4395903fa6143c2b9267d048ae01ca6d3ea96f16cb30df6187d94 AS build
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
# The dependencies first, so a code change does not reinstall them (postinstall generates the
# Prisma client from prisma/schema.prisma; packages/server is the server package's entry points,
# installed as a copy into node_modules, whose compiled code `npm run build` writes into dist/).
COPY package.json package-lock.json .npmrc prisma.config.ts ./
COPY packages ./packages
COPY prisma ./prisma
COPY scripts/prisma-generate.ts ./scripts/prisma-generate.ts
RUN npm ci --no-audit --no-fund --loglevel=warn
COPY . .
RUN npm run build
RUN npm prune --omit=dev --no-audit --no-fund --loglevel=warn
RUN rm -rf .next/cache

# ---- runtime: the builds and the production dependencies, Debian's ffmpeg, a non-root user ----
# The entry points run as JavaScript compiled by `npm run build` (dist/): no TypeScript source and
# no TypeScript loader at run time.
FROM node:22.22.0-bookworm-slim@sha256:dd9d21971ec4395903fa6143c2b9267d048ae01ca6d3ea96f16cb30df6187d94 AS runtime
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV NODE_ENV=production \
    NEXT_TELEMETRY_DISABLED=1 \
    HOST=0.0.0.0 \
    PORT=3000 \
    RUN_WORKER=false \
    WGS_DATA_DIR=/app/data \
    FFMPEG_PATH=/usr/bin/ffmpeg \
    MALLOC_ARENA_MAX=2 \
    MALLOC_MMAP_THRESHOLD_=131072
COPY --from=build /app/package.json /app/package-lock.json /app/next.config.mjs /app/packages.example.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/prisma ./prisma
# The build stays root's: the runtime user can read it but never change the code it serves. Only
# .next/cache is the user's, where Next's image optimizer writes (Kubernetes mounts an emptyDir there).
COPY --from=build /app/.next ./.next
RUN mkdir -p /app/data /app/.next/cache && chown node:node /app/data /app/.next/cache
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The app instance (npm run start:production). The worker: node dist/worker.js --production;
# the migrate step: node dist/migrate.js; the operator CLI: node dist/cli.js.
CMD ["node", "--max-old-space-size=256", "--no-allocation-site-pretenuring", "dist/start.js", "--production"]
