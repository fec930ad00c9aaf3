# syntax=docker/dockerfile:1
# The hermes-temporal worker image: compiled TypeScript plus production node_modules on a slim
# Node 20 runtime that has what the built-in tools shell out to (bash, git).
# Built by docker-compose.yml (`docker compose up --build`); the entry point is the worker.
# Installs only with `npm ci` on the committed lockfile; .ci/run runs these stages' npm steps outside
# Docker (scripts/check-dockerfile-install.ts). The cloud backends' SDKs are not in the image.

# --- toolchain: compilers for native modules (better-sqlite3 builds with node-gyp) ---------------
FROM node:20-bookworm-slim AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./

# --- build: all dependencies, then tsc -> dist/ ------------------------------------------------
FROM toolchain AS build
# --ignore-scripts: package.json's `prepare` script runs tsc, which needs the sources copied
# below; tsc itself needs no native module.
RUN --mount=type=cache,target=/root/.npm npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json worker.ts ./
COPY src ./src
RUN npm run build

# --- production-dependencies: node_modules without devDependencies, native modules compiled ----
FROM toolchain AS production-dependencies
# `npm rebuild` runs the dependencies' install scripts (better-sqlite3's native build, @swc/core's
# platform check) but not the project's own `prepare`, which would need the dev-only tsc.
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --ignore-scripts \
 && npm rebuild

# --- runtime ------------------------------------------------------------------------------------
FROM node:20-bookworm-slim AS runtime
# bash: the terminal tool runs `bash -c`; git: agents clone and commit; ca-certificates: HTTPS to
# the model API. No compilers here: native modules arrive prebuilt from production-dependencies.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bash git ca-certificates \
 && rm -rf /var/lib/apt/lists/*

# A fixed uid/gid so operators can chown bind mounts; /data and /workspace are created here so
# named volumes mounted on them start out owned by hermes.
RUN groupadd --gid 10001 hermes \
 && useradd --uid 10001 --gid hermes --create-home --shell /bin/bash hermes \
 && mkdir -p /data /workspace \
 && chown hermes:hermes /data /workspace

ENV NODE_ENV=production \
    HERMES_TEMPORAL_HOME=/data

WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist

# The package's `bin` (dist/src/cli/main.js) as a command, for `docker compose exec worker hermes-temporal …`.
RUN printf '#!/bin/sh\nexec node --max-semi-space-size=2 /app/dist/src/cli/main.js "$@"\n' > /usr/local/bin/hermes-temporal \
 && chmod 0755 /usr/local/bin/hermes-temporal

USER hermes
# Agents work here (the session cwd defaults to the process cwd).
WORKDIR /workspace
# The worker drains running tools on SIGTERM; compose gives it stop_grace_period to do so.
# A young generation of 2 MB a semi-space, as `hermes-temporal` and `npm run worker` start node:
# parked sessions otherwise leave hundreds of MB of young garbage resident.
ENTRYPOINT ["node", "--max-semi-space-size=2", "/app/dist/worker.js"]
