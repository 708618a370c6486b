# syntax=docker/dockerfile:1
# The API image: compiled JavaScript, production dependencies only, running as a non-root user.
ARG NODE_IMAGE=node:20-slim

# better-sqlite3 is a native addon. npm ci fetches a prebuilt binary when one matches this Node
# and platform, and compiles it otherwise: the toolchain lives in these build stages only.
FROM ${NODE_IMAGE} AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

# Compile TypeScript with the full dependency set.
FROM toolchain AS build
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only, native addon included.
FROM toolchain AS deps
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    PORT=4000
WORKDIR /app
COPY --chown=node:node package.json ./
COPY --from=deps --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
# The GraphQL schema files are read at startup (src/graphql/schema.ts: <app>/schema).
COPY --chown=node:node schema ./schema
# The Insights page's HTML, scripts and styles (src/insights/index.ts: <app>/public/insights).
COPY --chown=node:node public ./public
# Writable by the app user for STORE=sqlite (SQLITE_PATH defaults to ./data/songs.db).
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]
