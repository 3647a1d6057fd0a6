"""gunicorn's target: ``gunicorn -c gunicorn.conf.py app.wsgi:app``."""

from app import create_app

app = create_app()
