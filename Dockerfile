# Multi-stage image: build with dev dependencies, run with production ones only.
# Base: Node 24 (LTS; Node 20 reached end of life in April 2026), pinned to a release so that a rebuild gets the
# same Node: change NODE_IMAGE to upgrade (and, where the registry is reachable, add its digest:
# node:24.19.0-bookworm-slim@sha256:...).
ARG NODE_IMAGE=node:24.19.0-bookworm-slim
# The image runs the API against DATABASE_URL (an external PostgreSQL); without it the embedded PostgreSQL
# starts in /data (mount a volume there). The same image runs a worker: `node dist/src/worker-main.js`
# (see compose.yaml).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` would build before the sources are copied; the build is the next step.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
# a fresh build: no stale outputs to clean (npm run build first runs tools/clean-stale-build.js, not copied here)
RUN npx tsc -b tsconfig.build.json

FROM ${NODE_IMAGE} AS runtime
# tini as PID 1: it forwards SIGTERM/SIGINT to node and reaps zombies (the embedded PostgreSQL's children
# are re-parented to PID 1 if node dies). node, not npm, is the process that receives the signal.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
# Non-root: the image's `node` user (uid 1000) owns /data; the embedded PostgreSQL runs as it too. /data holds
# the admin credentials written at the first start (and the embedded database): mount a volume there.
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/public/v1/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["/usr/bin/tini", "--"]
# Exec form: node is tini's only child and gets SIGTERM directly; on it the service hands running jobs
# back to the queue, closes HTTP and stops the embedded PostgreSQL, within 10 s in practice (after 20 s it exits
# anyway: FORCED_EXIT_MS in src/bootstrap.ts; compose.yaml's stop_grace_period is longer).
CMD ["node", "dist/src/main.js"]
