"""The process that serves the app: gunicorn's worker classes as gunicorn.conf.py configures
them, their reading and closing of connections, and the garbage collector's tuning."""
