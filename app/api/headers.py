"""Security headers: what a browser may do with our answers.

Every answer: ``X-Content-Type-Options: nosniff`` (a JSON answer is never run as a script or
page) and ``Referrer-Policy: no-referrer`` (a game id in our URLs never leaks to other sites).
Every HTML page: a Content-Security-Policy that runs only script files of our own (no inline
script, no eval), forbids framing (clickjacking), and lets the page talk to us alone.
"""

from __future__ import annotations

from flask import Flask, Response, request

_PAGE_POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'none'",
    "form-action": "'self'",
    "frame-ancestors": "'none'",
}
# Swagger UI (React) sets style attributes and draws its icons as data: images; its
# scripts are still files of ours only.
_DOCS_POLICY = {**_PAGE_POLICY, "style-src": "'self' 'unsafe-inline'"}


def _policy(directives: dict[str, str]) -> str:
    return "; ".join(f"{name} {value}" for name, value in directives.items())


PAGE_CSP = _policy(_PAGE_POLICY)
DOCS_CSP = _policy(_DOCS_POLICY)


def add_security_headers(response: Response) -> Response:
    headers = response.headers
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "no-referrer")
    if response.mimetype == "text/html":
        docs = request.path == "/docs" or request.path.startswith("/docs/")
        headers.setdefault("Content-Security-Policy", DOCS_CSP if docs else PAGE_CSP)
        headers.setdefault("X-Frame-Options", "DENY")  # frame-ancestors for older browsers
    return response


def install_security_headers(app: Flask) -> None:
    app.after_request(add_security_headers)
