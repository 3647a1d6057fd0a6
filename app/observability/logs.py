"""JSON lines on stdout, one object per line, for the app and for gunicorn alike.

Two paths, one format (``ts``, ``level``, ``logger``, ``pid``, ``event``, then the fields):
- the request log, one line per request, goes from structlog straight to stdout as one write of
  one line: the standard library's logging machinery (caller lookup, records, handlers) would
  cost several times as much on every request;
- every other record (gunicorn's, Flask's, SQLAlchemy's warnings) goes through the standard
  library and structlog's ``ProcessorFormatter``. ``gunicorn.conf.py`` hands ``logging_config()``
  to gunicorn; a process without gunicorn gets it from ``configure()`` if nothing else set up
  logging.

What is logged is chosen where it is logged (``app/api/telemetry.py``): never a header, a body, a
query string or a raw path, so a token, a seed or a card cannot reach a log line by accident.
Tracebacks are rendered as plain text, without local variables.
"""

from __future__ import annotations

import logging
import logging.config
import os
import sys
import threading
from typing import Any

import structlog
from structlog.stdlib import ProcessorFormatter
from structlog.typing import EventDict, Processor

REQUEST_LOGGER = "basra.request"
_configured = False


def _add_pid(_logger: Any, _method: str, event_dict: EventDict) -> EventDict:
    event_dict["pid"] = os.getpid()
    return event_dict


# Run on every record, structlog's and the standard library's.
SHARED: list[Processor] = [
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
    _add_pid,
]


def json_formatter() -> logging.Formatter:
    return ProcessorFormatter(
        foreign_pre_chain=SHARED,
        processors=[
            ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,  # plain text: no local variables
            structlog.processors.JSONRenderer(),
        ],
    )


def logging_config() -> dict[str, Any]:
    """A ``logging.config.dictConfig`` document: gunicorn's loggers and the root, JSON to stdout."""
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": json_formatter}},
        "handlers": {
            "stdout": {
                "class": "logging.StreamHandler",
                "formatter": "json",
                "stream": "ext://sys.stdout",
            }
        },
        "root": {"level": "INFO", "handlers": ["stdout"]},
        "loggers": {
            # Gunicorn's own handlers are replaced: its records reach the root's JSON handler.
            "gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
            "gunicorn.access": {"level": "INFO", "handlers": [], "propagate": True},
        },
    }


class StdoutLines:
    """structlog's output: each rendered event as one line, in one write, to whatever
    ``sys.stdout`` is at that moment (gunicorn's log, or a test's capture)."""

    _lock = threading.Lock()

    def __init__(self, name: str) -> None:
        self.name = name

    def msg(self, message: str) -> None:
        with self._lock:
            out = sys.stdout
            out.write(message + "\n")
            out.flush()

    info = warning = error = critical = msg


def _add_logger_name(logger: Any, _method: str, event_dict: EventDict) -> EventDict:
    event_dict["logger"] = logger.name
    return event_dict


def configure() -> None:
    """Set structlog up once per process; give the root a JSON handler if it has none."""
    global _configured
    if _configured:
        return
    _configured = True
    structlog.configure(
        processors=[
            structlog.processors.add_log_level,
            _add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True, key="ts"),
            _add_pid,
            structlog.processors.format_exc_info,
            structlog.processors.JSONRenderer(),
        ],
        logger_factory=StdoutLines,
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        cache_logger_on_first_use=True,
    )
    if not logging.getLogger().handlers:
        logging.config.dictConfig(logging_config())


def request_logger() -> Any:
    return structlog.get_logger(REQUEST_LOGGER)
