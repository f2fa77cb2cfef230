"""Tokens: viewers read, the table token writes. Sent as ``Authorization: Bearer T`` or ``?token=T``.

No token gives 401; a token that is not good enough for the request gives 403.
"""

from __future__ import annotations

import hmac
from typing import Annotated, Any

from fastapi import Depends, HTTPException, Query, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .store import Tokens
from .tokens import UNKNOWN_TOKEN

bearer = HTTPBearer(auto_error=False, description="the viewer token (reads) or the table token (writes)")


def current_tokens(app: Any) -> Tokens:
    """The tokens of ``app`` as its database holds them now (``companion tokens --rotate`` may have
    changed them while it runs); ``app.state.tokens`` is kept up to date with them."""
    live = getattr(app.state, "live_tokens", None)
    if live is not None:
        app.state.tokens = live.get()
    tokens: Tokens = app.state.tokens
    return tokens


def get_tokens(request: Request) -> Tokens:
    """This server's tokens (overridable in tests)."""
    return current_tokens(request.app)


def presented_token(
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)],
    token: Annotated[str | None, Query(description="the token, when a header cannot be sent (EventSource)")] = None,
) -> str:
    """The token sent with the request; 401 when there is none."""
    if credentials is not None and credentials.credentials:
        return credentials.credentials
    if token:
        return token
    raise HTTPException(status_code=401, detail="a token is needed: send 'Authorization: Bearer TOKEN' or ?token=TOKEN",
                        headers={"WWW-Authenticate": "Bearer"})


def _same(a: str, b: str) -> bool:
    return hmac.compare_digest(a.encode(), b.encode())


def require_viewer(token: Annotated[str, Depends(presented_token)],
                   tokens: Annotated[Tokens, Depends(get_tokens)]) -> str:
    """Read access: the viewer token or the table token. Returns the role (``viewer``/``table``)."""
    if _same(token, tokens.table):
        return "table"
    if _same(token, tokens.viewer):
        return "viewer"
    raise HTTPException(status_code=403, detail=UNKNOWN_TOKEN)


def require_table(token: Annotated[str, Depends(presented_token)],
                  tokens: Annotated[Tokens, Depends(get_tokens)]) -> str:
    """Write access: only the table token printed when the server started."""
    if _same(token, tokens.table):
        return "table"
    if _same(token, tokens.viewer):
        raise HTTPException(status_code=403, detail="this needs the table token; the viewer token only reads")
    raise HTTPException(status_code=403, detail="this token is not valid for this table")


Viewer = Annotated[str, Depends(require_viewer)]
TableWriter = Annotated[str, Depends(require_table)]
