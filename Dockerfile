# Multi-stage build for every Corpus Chat image. Targets:
#   server  – API or agent-worker (same image, different command)
#   web     – the Angular build behind nginx, proxying /api and /socket.io to the API
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM deps AS build
COPY . .
RUN node tools/build/build-node.mjs \
 && npx nx run web:build --configuration=production --outputStyle=static

FROM node:20-bookworm-slim AS server
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist/node ./dist/node
# DATA_DIR: uploads wait here for the agent-worker (a volume both services mount).
RUN mkdir -p /data && chown node:node /data
USER node
# API by default; the agent-worker service overrides the command.
CMD ["node", "dist/node/apps/api/src/main.js"]

FROM nginx:1.27-alpine AS web
COPY docker/nginx.conf /etc/nginx/conf.d/default.conf
COPY --from=build /app/dist/web/browser /usr/share/nginx/html
