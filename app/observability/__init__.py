"""What operators see: Prometheus metrics (one scrape adds up every gunicorn worker) and JSON log
lines (one formatter for the app and gunicorn)."""
