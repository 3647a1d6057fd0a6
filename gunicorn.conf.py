"""Gunicorn settings; every value can be overridden from the environment."""

import os

bind = f"{os.environ.get('HOST', '127.0.0.1')}:{os.environ.get('PORT', '8000')}"
workers = int(os.environ.get("WEB_CONCURRENCY", "4"))
worker_class = "sync"
timeout = 30
graceful_timeout = 10
# The app is built in each worker, so no database connection is shared across a fork.
preload_app = False

accesslog = "-"
errorlog = "-"
# Gunicorn's default format minus %(u)s (the Basic-auth user) plus the request time. It logs no
# request headers, so bearer tokens never reach the log: keep it so if this format changes.
access_log_format = '%(h)s %(l)s - %(t)s "%(r)s" %(s)s %(b)s "%(f)s" "%(a)s" %(L)ss'

# Gunicorn 27's runtime control socket lives at one fixed path per user, which concurrent
# servers (tests, benchmarks) would fight over; nothing here uses it.
control_socket_disable = True
