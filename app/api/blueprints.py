"""How a view declares its contract: flask-smorest's decorators, on a Blueprint that reads and
answers the way this API does.

A view says what it takes, what it answers and what it may refuse, and stays a few lines long::

    @blp.route("/<game_id>/resign")
    class ResignResource(MethodView):
        @blp.doc(operationId="resign", summary="...", description="...", security=BEARER)
        @blp.response(201, schemas.ResignedSchema, description="...", headers=ETAG)
        @blp.problems("unauthorized", "forbidden", "not_found", "game_not_active", "conflict")
        def post(self, game_id: str) -> Answer:
            ...
            return {"state": resigned.state}, etag(resigned.state["version"], private=True)

- ``@blp.arguments(Schema, location="json" | "query", first=check)``: the body or the query,
  read by ``requests.py``'s own readers (400, 413, 415, 422 as problem+json) and handed to the
  view after ``self``. ``first`` is the check a refused read waits for (API.md's order: the
  game, then the token, then the request's shape), given the view's path arguments.
- ``@blp.response(status, Schema, ...)``: the one success status. The view returns the body
  (built by the use case, already in the schema's shape: it is not dumped again) and its
  headers; a view that must answer otherwise (a 304) returns a ``Response`` of its own.
- ``@blp.problems(*codes)``: one ``alt_response`` per refusal status, built by
  ``problem_answers.py`` from the one table of codes in ``errors.py``.

The order of a blueprint's paths in ``openapi.yaml`` is the ``paths`` it is made with, whatever
order its modules are imported in; a route not listed there is refused when it is documented.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import wraps
from typing import Any

from apispec import BasePlugin
from flask import Response, jsonify
from flask_smorest import Blueprint
from flask_smorest.utils import unpack_tuple_response
from marshmallow import Schema
from webargs.flaskparser import FlaskParser

from app.api.errors import PROBLEM_JSON
from app.api.problem_answers import problems
from app.api.requests import after_access, json_body, query

# What a view may return: a body, a body and its headers, or a Response of its own.
Answer = Response | dict[str, Any] | tuple[dict[str, Any], Mapping[str, str]]
READERS: dict[str, Callable[[type[Schema]], dict[str, Any]]] = {"json": json_body, "query": query}


class RequestParser(FlaskParser):
    """webargs' parser, reading with ``requests.py`` (so every refusal is this API's problem)
    and, when a read is refused, running the view's ``first`` check before it."""

    def use_args(self, argmap: Any, req: Any = None, *, location: str | None = None,
                 first: Callable[..., object] | None = None,
                 **_kwargs: Any) -> Callable[..., Any]:  # fmt: skip
        schema = argmap if isinstance(argmap, type) else type(argmap)
        read = READERS[location or "json"]

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            @wraps(func)
            def parsed(*args: Any, **kwargs: Any) -> Any:
                if first is None:
                    data = read(schema)
                else:
                    data = after_access(lambda: first(**kwargs), lambda: read(schema))
                return func(*args, data, **kwargs)

            return parsed

        return decorator


class ApiBlueprint(Blueprint):
    """A flask-smorest Blueprint whose paths are documented in the order it is given."""

    ARGUMENTS_PARSER = RequestParser()
    _docs: dict[str, Any]  # flask-smorest's: each endpoint's documentation, in route order

    def __init__(self, *args: Any, paths: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.paths = paths
        self._rules: dict[str, str] = {}
        self._prepare_doc_cbks.append(_prepare_added_parameters_doc)

    def add_url_rule(self, rule: str, endpoint: str | None = None, view_func: Any = None,
                     provide_automatic_options: bool | None = None,
                     **options: Any) -> None:  # fmt: skip
        if rule not in self.paths:
            raise ValueError(f"{self.name}: list {rule!r} in the blueprint's paths")
        known = set(self._docs)
        super().add_url_rule(rule, endpoint, view_func, provide_automatic_options, **options)
        for added in set(self._docs) - known:
            self._rules[added] = rule

    def register_views_in_doc(self, api: Any, app: Any, spec: Any, *, name: str,
                              parameters: Any) -> None:  # fmt: skip
        listed = self._docs
        self._docs = dict(sorted(listed.items(), key=lambda e: self.paths.index(self._rules[e[0]])))
        try:
            super().register_views_in_doc(api, app, spec, name=name, parameters=parameters)
        finally:
            self._docs = listed

    def doc(self, **kwargs: Any) -> Callable[..., Any]:
        """flask-smorest's, but its ``parameters`` (the headers a view reads itself) come after
        those of ``@blp.arguments`` (a query's), where flask-smorest would put them instead."""
        added = kwargs.pop("parameters", None)
        documented = super().doc(**kwargs)

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            described = documented(func)
            if added:
                described._apidoc["added_parameters"] = added
            return described

        return decorator

    def arguments(self, schema: Any, **kwargs: Any) -> Callable[..., Any]:
        """flask-smorest's, without the 422 it documents by itself: ``@blp.problems`` names
        ``invalid_request`` with this API's problem document."""
        documented = super().arguments(schema, **kwargs)

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            parsed = documented(func)
            parsed._apidoc["arguments"].pop("responses", None)
            return parsed

        return decorator

    def response(self, status_code: int, schema: Any = None,
                 **kwargs: Any) -> Callable[..., Any]:  # fmt: skip
        """The success answer, documented by flask-smorest; the view's body is sent as it is."""
        documented = super().response(status_code, schema, **kwargs)

        def decorator(func: Callable[..., Answer]) -> Callable[..., Any]:
            @wraps(func)
            def answer(*args: Any, **kw: Any) -> Response:
                result = func(*args, **kw)
                if isinstance(result, Response):
                    return result
                body, _status, headers = unpack_tuple_response(result)
                response = jsonify(body)
                response.status_code = status_code
                response.headers.update(headers or {})
                return response

            return documented(answer)

        return decorator

    def problems(self, *codes: str, **kwargs: Any) -> Callable[..., Any]:
        """The refusals a view may answer (and those every view may), one response a status."""
        answers = [
            self.alt_response(status, content_type=PROBLEM_JSON, **documented(answer))
            for status, answer in problems(*codes, **kwargs).items()
        ]

        def decorator(func: Callable[..., Any]) -> Callable[..., Any]:
            for alt in answers:
                func = alt(func)
            return func

        return decorator


def _prepare_added_parameters_doc(doc: dict[str, Any], doc_info: dict[str, Any],
                                  **_kwargs: Any) -> dict[str, Any]:  # fmt: skip
    """The parameters ``ApiBlueprint.doc`` was given, after those flask-smorest documented."""
    added = doc_info.get("added_parameters")
    if added:
        doc["parameters"] = [*doc.get("parameters", []), *added]
    return doc


def documented(answer: dict[str, Any]) -> dict[str, Any]:
    """``alt_response``'s keywords for one of ``problem_answers.problems``'s answers."""
    media = answer["content"][PROBLEM_JSON]
    return {
        "description": answer["description"],
        "schema": media["schema"],
        "examples": media["examples"],
    }


class OperationOrderPlugin(BasePlugin):
    """Each operation as the document has always listed it: its answers first (``default``,
    then by status), what flask-smorest's decorators declare (the body, then the parameters)
    last, and the words of ``@blp.doc`` between them in their own order. (Only a blueprint's
    operations: those with flask-smorest's ``default`` answer.)"""

    def operation_helper(self, path: str | None = None, operations: dict[str, Any] | None = None,
                         **_kwargs: Any) -> None:  # fmt: skip
        for operation in (operations or {}).values():
            if "default" not in operation.get("responses", {}):
                continue
            ordered = {}
            if "responses" in operation:
                answers = operation["responses"]
                ordered["responses"] = {key: answers[key] for key in sorted(answers, key=_status)}
            ordered.update((k, v) for k, v in operation.items()
                           if k not in ("responses", "requestBody", "parameters"))  # fmt: skip
            if "requestBody" in operation:
                body = operation["requestBody"]
                ordered["requestBody"] = {
                    **{k: body[k] for k in ("description", "required") if k in body},
                    **body,
                }
            if "parameters" in operation:
                ordered["parameters"] = operation["parameters"]
            operation.clear()
            operation.update(ordered)


def _status(key: Any) -> tuple[int, int]:
    return (0, 0) if key == "default" else (1, int(key))
