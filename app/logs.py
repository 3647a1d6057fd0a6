"""JSON lines on stdout, one object per line, for the app and for gunicorn alike.

structlog renders every record, its own (the request log) and the standard library's (gunicorn,
Flask, SQLAlchemy warnings), through one ``ProcessorFormatter``: so a collector reads a single
format. ``gunicorn.conf.py`` hands ``logging_config()`` to gunicorn; a process without gunicorn
gets the same handler from ``configure()`` when nothing else set up logging.

What is logged is chosen where it is logged (``app/api/telemetry.py``): never a header, a body, a
query string or a raw path, so a token, a seed or a card cannot reach a log line by accident.
Tracebacks are rendered as plain text, without local variables.
"""

from __future__ import annotations

import logging
import logging.config
import os
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


def configure() -> None:
    """Set structlog up once per process; give the root a JSON handler if it has none."""
    global _configured
    if _configured:
        return
    _configured = True
    structlog.configure(
        processors=[*SHARED, ProcessorFormatter.wrap_for_formatter],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.make_filtering_bound_logger(logging.INFO),
        cache_logger_on_first_use=True,
    )
    logging.getLogger("basra").setLevel(logging.INFO)
    if not logging.getLogger().handlers:
        logging.config.dictConfig(logging_config())


def request_logger() -> Any:
    return structlog.get_logger(REQUEST_LOGGER)
