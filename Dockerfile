# Multi-stage image: build with dev dependencies, run with production ones only.
# The image runs `npm start`-equivalent against DATABASE_URL (an external PostgreSQL); without it the
# embedded PostgreSQL starts in /data (mount a volume there).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
COPY bench ./bench
RUN npm run build

FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production PORT=8080 DATA_DIR=/data LOG_FORMAT=json
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=5s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/public/v1/health/ready').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# --ignore-scripts: the image is already built, so skip the prestart build
CMD ["npm", "start", "--ignore-scripts"]
