# Switchyard's image (docs/operations.md, Container image): the built dist/ and the production
# dependencies on Node.js 24, run as the unprivileged `node` user.

# Build: every dependency, then the compile of src/ to dist/.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# No install scripts: the image's Node.js is 24 already, so the `node` package's download of one is
# not needed, and isolated-vm ships its binary prebuilt.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npx tsc -p tsconfig.build.json

# Production dependencies only.
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4000 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
# The embedded default's data directory (for a trial; production sets DATABASE_URL and REDIS_URL).
RUN mkdir -p /data && chown node:node /data
VOLUME ["/data"]
USER node
EXPOSE 4000
# Liveness only: readiness (/health/ready) also needs Postgres and Redis, which an orchestrator
# should check apart, so a database outage does not get the container restarted.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself, drains, and exits within SHUTDOWN_TIMEOUT_MS.
ENTRYPOINT ["node", "bin/switchyard.js"]
CMD ["serve"]
