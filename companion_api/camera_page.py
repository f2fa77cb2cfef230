"""The camera page and its stream (INTERFACES §5): ``GET /camera``, ``WS /api/camera`` and
``POST /api/camera/picture`` (a calibration picture taken with the phone).

All three need the table token: the phone on the stand is the table's own camera, not a viewer.
"""

from __future__ import annotations

import hmac
import json
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import APIRouter, HTTPException, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse

from .auth import TableWriter
from .phone_camera import MAX_FRAME_BYTES, PhoneCamera

STATIC = Path(__file__).parent / "static"
#: WebSocket close code for a missing or wrong token (RFC 6455 "policy violation").
CLOSE_BAD_TOKEN = 1008

router = APIRouter()


def camera_of(app: Any) -> PhoneCamera:
    """The app's phone camera (made at start-up; a stand-in before that)."""
    cam = getattr(app.state, "phone_camera", None)
    if cam is None:
        cam = app.state.phone_camera = PhoneCamera(active=False)
    assert isinstance(cam, PhoneCamera)
    return cam


def picture_folder(request: Request) -> Path:
    """Where calibration pictures are kept: a ``camera`` folder beside the database."""
    return Path(request.app.state.settings.db).parent / "camera"


@router.get("/camera", include_in_schema=False)
def camera_page(_: TableWriter) -> FileResponse:
    """The camera page (needs ``?token=TABLE_TOKEN``)."""
    return FileResponse(STATIC / "camera.html", media_type="text/html", headers={"Cache-Control": "no-cache"})


@router.websocket("/api/camera")
async def camera_stream(ws: WebSocket) -> None:
    """Binary messages in, one JPEG frame each; a JSON text answer for each (``PhoneCamera.push``)."""
    tokens = ws.app.state.tokens
    token = ws.query_params.get("token") or ""
    auth = ws.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        token = auth[7:].strip()
    if not hmac.compare_digest(token.encode(), tokens.table.encode()):
        await ws.close(code=CLOSE_BAD_TOKEN, reason="the camera needs the table token (?token=TABLE_TOKEN)")
        return
    cam = camera_of(ws.app)
    await ws.accept()
    cam.connected()
    try:
        await ws.send_text(json.dumps(cam.answer()))
        while True:
            msg = await ws.receive()
            if msg["type"] == "websocket.disconnect":
                return
            data = msg.get("bytes")
            if data is None:  # a text message: the page asking how things stand
                await ws.send_text(json.dumps(cam.answer()))
                continue
            if len(data) > MAX_FRAME_BYTES:
                answer = cam.answer()
                answer["error"] = f"frame larger than {MAX_FRAME_BYTES // (1024 * 1024)} MB: not taken"
                await ws.send_text(json.dumps(answer))
                continue
            await ws.send_text(json.dumps(cam.push(data)))
    except WebSocketDisconnect:
        return
    finally:
        cam.disconnected()


@router.post("/api/camera/picture", status_code=201,
             summary="keep a picture from the camera page for calibrate board / calibrate tiles (table token)")
async def calibration_picture(
        request: Request, _: TableWriter,
        kind: Annotated[Literal["board", "tiles"], Query(description="which calibration step")]) -> dict[str, Any]:
    """The body is one JPEG (``Content-Type: image/jpeg``); an empty body keeps the newest streamed frame."""
    body = await request.body()
    data = body or camera_of(request.app).latest_jpeg()
    if not data:
        raise HTTPException(422, detail="no picture: send a JPEG or stream from the camera page first")
    if len(data) > MAX_FRAME_BYTES or not data.startswith(b"\xff\xd8"):
        raise HTTPException(422, detail="the picture must be one JPEG of at most "
                                        f"{MAX_FRAME_BYTES // (1024 * 1024)} MB")
    folder = picture_folder(request)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"calibration-{kind}.jpg"
    tmp = path.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(path)
    game = request.app.state.table.header.game
    return {"kind": kind, "path": str(path), "bytes": len(data),
            "command": f"companion calibrate {kind} --game {game} {path} --out PROFILE.json"}
