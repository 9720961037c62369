# One image for every tonstream service; docker-compose.yml picks the service with
# `command: node services/<name>/dist/main.js`.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY . .
# No `npm prune --omit=dev` yet: kafkajs, @clickhouse/client and ioredis are root devDependencies
# today, and the services need them at run time.
RUN npm ci --no-audit --no-fund \
 && npx tsc -b

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
CMD ["node", "-e", "console.error('choose a service: node services/<name>/dist/main.js'); process.exit(2)"]
