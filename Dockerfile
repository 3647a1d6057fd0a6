FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /srv/basra

# Dependencies first, so code edits do not invalidate this layer.
COPY pyproject.toml ./
RUN mkdir -p app && touch app/__init__.py \
    && pip install . \
    && pip uninstall -y basra-server \
    && rm -rf app build *.egg-info

# Editable, so the package stays beside migrations/ as in a checkout (`basra migrate` finds it).
COPY . .
RUN pip install --no-deps -e .

RUN useradd --system --create-home --uid 10001 basra \
    && mkdir -p var && chown basra:basra var
USER basra

ENV HOST=0.0.0.0 \
    PORT=8000
EXPOSE 8000

CMD ["gunicorn", "-c", "gunicorn.conf.py", "app.wsgi:app"]
