# Pyodide (the tablet's referee) from npm, pinned with its integrity hash by package-lock.json;
# the browser-test packages (dev) stay out of the image.
FROM node:20-slim AS npm
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY config config
COPY referee referee
COPY scoring scoring
COPY web web
COPY db db
COPY evenings evenings
RUN pip install --no-cache-dir .
COPY . .
COPY --from=npm /app/node_modules node_modules
# The tablet's engine is built from the source being deployed, then collected with the rest;
# Node (mounted from the npm stage for this step only, not kept in the image) makes the memory
# snapshot the tablet starts from (without it the tablet starts Python itself, seconds slower).
RUN --mount=type=bind,from=npm,source=/usr/local/bin/node,target=/usr/local/bin/node \
    ALLOW_INSECURE_KEY=1 python manage.py build_engine \
    && ALLOW_INSECURE_KEY=1 python manage.py collectstatic --noinput
EXPOSE 8000
CMD ["gunicorn", "config.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "3"]
