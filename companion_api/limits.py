"""Guards in front of the app against hostile or broken requests (what a stranger on the table's
Wi-Fi could send).

``GuardWrites`` is a pure ASGI middleware for every request that can change something (any method
but GET, HEAD and OPTIONS). In this order, and before the app sees the request:

1. the table token is checked from the headers or the query string alone: no token → 401, a
   wrong one → 403, without reading a byte of the body;
2. a declared ``Content-Length`` over ``MAX_BODY_BYTES`` → 413 at once; a chunked body is counted
   as it arrives and refused with 413 as soon as it passes the limit;
3. a body must be JSON (``Content-Type: application/json``, else 415) — or, on the few paths that take
   a picture (``uploads``: the camera page's calibration picture), of their declared picture type — and strict JSON
   (``engine.core.jsonsafe``: UTF-8, no NaN/Infinity, no lone surrogates, at most 64 levels
   deep, whole numbers within SQLite's range), else 422 — each refusal one sentence in
   ``detail``. Refusals close the connection, so an unread body is never waited for.

The body, once accepted, is handed to the app unchanged.
"""

from __future__ import annotations

import hmac
import json
from collections.abc import Awaitable, Callable, Mapping, MutableMapping
from typing import Any
from urllib.parse import parse_qs

from engine.core.jsonsafe import MAX_DEPTH, JsonInputError, loads_strict

from .store import Tokens

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Largest request body (bytes). Bodies are events, headers and corners: a few hundred bytes.
MAX_BODY_BYTES = 1024 * 1024
#: Methods that only read; every other method needs the table token.
READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

NO_TOKEN = "a token is needed: send 'Authorization: Bearer TOKEN' or ?token=TOKEN"
VIEWER_TOKEN = "this needs the table token; the viewer token only reads"
BAD_TOKEN = "this token is not valid for this table"


#: Longest string and longest list an event typed on the phone may hold (names, squares, tiles).
MAX_TEXT = 200
MAX_ITEMS = 200


def oversized(value: Any, max_text: int = MAX_TEXT, max_items: int = MAX_ITEMS) -> str | None:
    """A sentence naming the first string or list in ``value`` (parsed JSON) over the limits, or ``None``."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str) and len(item) > max_text:
            return f"a text of {len(item)} characters is too long (at most {max_text})"
        if isinstance(item, list | dict) and len(item) > max_items:
            return f"a list of {len(item)} items is too long (at most {max_items})"
        if isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


class _TooLarge(Exception):
    """A streamed body passed the limit."""


def same_token(a: str, b: str) -> bool:
    """Constant-time comparison of two tokens."""
    return hmac.compare_digest(a.encode("utf-8", "surrogateescape"), b.encode("utf-8", "surrogateescape"))


def token_of(scope: Scope) -> str | None:
    """The token a request carries (``Authorization: Bearer T`` first, then ``?token=T``)."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            scheme, _, cred = value.decode("latin-1").partition(" ")
            if scheme.lower() == "bearer" and cred.strip():
                return str(cred).strip()
    query = scope.get("query_string", b"").decode("latin-1")
    values: list[str] = parse_qs(query).get("token", []) if "token=" in query else []
    first: str | None = values[0] if values and values[0] else None
    return first


class GuardWrites:
    """The write guard described in the module docstring; ``tokens(app)`` gives the current tokens."""

    def __init__(self, app: ASGIApp, tokens: Callable[[Any], Tokens], max_body: int = MAX_BODY_BYTES,
                 max_depth: int = MAX_DEPTH, uploads: Mapping[str, tuple[str, int]] | None = None) -> None:
        self.app = app
        self.tokens = tokens
        self.max_body = max_body
        self.max_depth = max_depth
        #: paths that take a picture instead of JSON: path → (content type, largest body in bytes)
        self.uploads = dict(uploads or {})

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in READ_METHODS:
            await self.app(scope, receive, send)
            return
        token = token_of(scope)
        if token is None:
            await _refuse(send, 401, NO_TOKEN, {"WWW-Authenticate": "Bearer"})
            return
        current = self.tokens(scope.get("app"))
        if not same_token(token, current.table):
            await _refuse(send, 403, VIEWER_TOKEN if same_token(token, current.viewer) else BAD_TOKEN)
            return
        headers = {k: v for k, v in scope.get("headers", ())}
        upload = self.uploads.get(str(scope.get("path", "")))
        max_body = self.max_body if upload is None else upload[1]
        length = headers.get(b"content-length")
        if length is not None:
            text = length.decode("latin-1").strip()
            if not text.isascii() or not text.isdigit():
                await _refuse(send, 400, "the Content-Length header is not a number of bytes")
                return
            if len(text) > 18 or int(text) > max_body:
                await _refuse(send, 413, f"the body is larger than {max_body // 1024} KB")
                return
        try:
            body = await self._read_body(receive, max_body)
        except _TooLarge:
            await _refuse(send, 413, f"the body is larger than {max_body // 1024} KB")
            return
        if body is None:  # the client went away
            return
        kind = headers.get(b"content-type", b"").decode("latin-1").split(";")[0].strip().lower()
        if upload is not None and body:
            if kind != upload[0]:
                await _refuse(send, 415, f"send the picture with 'Content-Type: {upload[0]}'")
                return
        elif body.strip():
            if kind != "application/json" and not kind.endswith("+json"):
                await _refuse(send, 415, "send the body as JSON with 'Content-Type: application/json'")
                return
            try:
                loads_strict(body, self.max_depth)
            except JsonInputError as exc:
                await _refuse(send, 422, str(exc))
                return
        await self.app(scope, _replay(body, receive), send)

    async def _read_body(self, receive: Receive, max_body: int) -> bytes | None:
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return None
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > max_body:
                raise _TooLarge
            parts.append(chunk)
            if not message.get("more_body", False):
                return b"".join(parts)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives ``body`` once, then what the client sends next (its disconnect)."""
    sent = False

    async def again() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return again


async def _refuse(send: Send, status: int, detail: str, extra: dict[str, str] | None = None) -> None:
    """Answer ``status`` with ``{"detail": detail}`` and close the connection after it."""
    data = json.dumps({"detail": detail}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()),
               (b"connection", b"close")]
    headers += [(k.lower().encode(), v.encode()) for k, v in (extra or {}).items()]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
