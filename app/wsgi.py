"""gunicorn's target: ``gunicorn -c gunicorn.conf.py app.wsgi:app``."""

from app import create_app

app = create_app()
# Games of bots alone left unfinished (a restart, a killed worker) are picked up from here on.
app.extensions["basra_bot_runner"].start()
