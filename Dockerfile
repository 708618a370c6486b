# syntax=docker/dockerfile:1
# The API image: compiled JavaScript, production dependencies only, running as a non-root user.
# Node 24 is the LTS line the image is built on; bump the minor deliberately (and rebuild) to
# take Node security releases. Checked by test/meta/deploy.test.ts for common hadolint rules.
ARG NODE_IMAGE=node:24.11-bookworm-slim

# better-sqlite3 is a native addon: `npm ci` fetches a prebuilt binary when one matches this Node
# and platform and compiles it otherwise. It happens once, here; the runtime stage copies the
# result, so the toolchain never reaches the final image.
FROM ${NODE_IMAGE} AS build
# Build tools for node-gyp only; versions follow the pinned Debian release of the base image.
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# The npm cache lives in a BuildKit cache mount: reused across builds, never in a layer.
RUN --mount=type=cache,target=/root/.npm \
    npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --no-audit --no-fund

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    SQLITE_PATH=/app/data/songs.db
WORKDIR /app
COPY --chown=node:node package.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The GraphQL schema files are read at startup (src/graphql/schema.ts: <app>/schema).
COPY --chown=node:node schema ./schema
# The Insights page's HTML, scripts and styles (src/insights/index.ts: <app>/public/insights).
COPY --chown=node:node public ./public
# The Insights page's scripts, bundled by npm run codegen (src/insights/index.ts reads them): its
# modules as one file, and its charting library in two steps with their shared core.
COPY --chown=node:node src/generated/insights-page.js ./src/generated/
COPY --chown=node:node src/generated/echarts ./src/generated/echarts
# The embedded store's directory: a volume, so the data outlives the container.
RUN mkdir -p /app/data && chown node:node /app/data
VOLUME /app/data
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Node as PID 1 receives SIGTERM itself (exec form, no shell): the API drains and exits 0.
STOPSIGNAL SIGTERM
CMD ["node", "dist/main.js"]
