"""The FastAPI app of one table: the phone page, the JSON API and live updates (INTERFACES §5)."""

from __future__ import annotations

import asyncio
import ipaddress
import json
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from io import BytesIO
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import Body, Depends, FastAPI, HTTPException, Query, Request
from fastapi import Header as HeaderParam
from fastapi import Path as PathParam
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator

from engine import blksgf
from engine.core import EngineError
from engine.core.record import dump_record

from .auth import TableWriter, Viewer, current_tokens, get_tokens, presented_token
from .board_picture import image_size, side_by_side
from .camera_page import router as camera_router
from .events_bus import EventBus, Message
from .lan import lan_address, url_host
from .limits import GuardWrites, oversized, same_token
from .phone_camera import MAX_FRAME_BYTES, PhoneCamera
from .routes_board import router as board_router
from .settings import Settings
from .sources import build_source, parse_source
from .store import Store
from .table import ManualEventError, SourceFactory, Table, header_for
from .tokens import REPAIR, LiveTokens

STATIC = Path(__file__).parent / "static"
#: Games the phone page can download as Blokus SGF (engine.blksgf writes them).
SGF_GAMES = ("trigon", "blokus", "blokus_duo")
#: Largest id or seq a request may name (SQLite's INTEGER).
MAX_ID = 2**63 - 1

#: Reconnect delay suggested to EventSource clients (ms).
SSE_RETRY_MS = 2000
#: Longest seat name and game id a request may give (characters).
MAX_NAME = 40
#: Largest picture side a corner may lie on (pixels): corners beyond any camera's frame are typos.
MAX_STILL_SIDE = 16384

SeatName = Annotated[str, StringConstraints(min_length=1, max_length=MAX_NAME)]
Pixel = Annotated[float, Field(ge=0, le=MAX_STILL_SIDE, allow_inf_nan=False)]


class NewGame(BaseModel):
    """Body of ``POST /api/games``; anything left out comes from the server's settings."""

    model_config = ConfigDict(extra="forbid")
    game: str | None = Field(None, max_length=MAX_NAME, description="game id (triolet, trigon, triominos, trio_domino)")
    players: Annotated[list[SeatName], Field(min_length=1, max_length=6)] | int | None = Field(
        None, description="seat names (1-6, each at most 40 characters), or a number of seats")
    options: dict[str, Any] = Field(default_factory=dict, max_length=32)
    first_player: int = Field(default=0, ge=0, le=5)


class Corners(BaseModel):
    """Body of ``POST /api/corners``: the board's 4 corners in pixels of ``GET /api/still``."""

    model_config = ConfigDict(extra="forbid")
    corners: list[tuple[Pixel, Pixel]] = Field(min_length=4, max_length=4,
                                               description="[[x, y] ×4] clockwise from the top-left one")

    @field_validator("corners")
    @classmethod
    def _a_board_shape(cls, corners: list[tuple[float, float]]) -> list[tuple[float, float]]:
        """The four corners, in order around the board, must enclose a convex four-sided shape."""
        turns = []
        for i in range(4):
            (ax, ay), (bx, by), (cx, cy) = corners[i], corners[(i + 1) % 4], corners[(i + 2) % 4]
            turns.append((bx - ax) * (cy - by) - (by - ay) * (cx - bx))
        if not (all(t > 0 for t in turns) or all(t < 0 for t in turns)):
            raise ValueError("the 4 corners must go round the board in order and enclose it (a convex shape)")
        return corners


def get_table(request: Request) -> Table:
    """The table this process serves (overridable in tests)."""
    table: Table = request.app.state.table
    return table


TableDep = Annotated[Table, Depends(get_table)]


def create_app(settings: Settings, source_factory: SourceFactory | None = None, use_source: bool = True) -> FastAPI:
    """The app for one table. Its lifespan opens the store and runs the table loop in a thread.

    ``source_factory`` overrides the source named by ``settings.source`` (tests); with
    ``use_source=False`` no source runs (only manual events).
    """

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        store = Store(settings.db)
        bus = EventBus()
        factory = source_factory
        if factory is None and use_source:
            factory = build_source(parse_source(settings.source), settings.speed, settings.sim_interval)
        table = Table(store, bus, factory if use_source else None,
                      header_for(settings.game, settings.players), seed=settings.seed,
                      new_game=settings.new_game, source_name=settings.source)
        app.state.store = store
        app.state.bus = bus
        app.state.table = table
        app.state.tokens = store.tokens()
        app.state.live_tokens = None if str(settings.db) == ":memory:" else LiveTokens(settings.db, app.state.tokens)
        # the phone's frames (WS /api/camera) feed the table only with --source phone
        app.state.phone_camera = getattr(factory, "camera", None) or PhoneCamera(active=False,
                                                                                 source_name=settings.source)
        if settings.announce:
            what = "resuming" if table.resumed else "new"
            print(f"companion serve: {what} {table.header.game} game {table.game_id} "
                  f"({table.game_json()['seq']} events so far), source {settings.source}", file=sys.stderr, flush=True)
        publisher = None
        if settings.hub is not None:  # listening before the table starts, so no event is missed
            from .hub.publisher import start_publisher

            publisher = start_publisher(settings.hub, settings.db, table, bus)
        table.start()
        try:
            yield
        finally:
            table.stop()
            if publisher is not None:
                publisher.stop()
            bus.close()
            store.close()
            if app.state.live_tokens is not None:
                app.state.live_tokens.close()

    app = FastAPI(title="Table Companion", version="1", lifespan=lifespan,
                  description="One table's referee and scorekeeper: live scores, move history, evidence.")
    app.state.settings = settings
    app.state.live_tokens = None
    # the token, the size and the JSON of every write are checked before the app reads the body
    app.add_middleware(GuardWrites, tokens=current_tokens,
                       uploads={"/api/camera/picture": ("image/jpeg", MAX_FRAME_BYTES)})

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        errors = []
        for err in exc.errors()[:10]:
            where = ".".join(str(p) for p in err.get("loc", ()))
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
            # the offending input is not echoed back: it may be huge, or not encodable as JSON
            errors.append({"loc": [str(p) for p in err.get("loc", ())], "msg": str(err.get("msg", "invalid")),
                           "type": str(err.get("type", ""))})
        detail = "; ".join(problems) or "invalid request"
        if len(detail) > 500:
            detail = detail[:497] + "…"
        return JSONResponse(status_code=422, content={"detail": detail, "errors": jsonable_encoder(errors)})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.include_router(board_router)  # tapping the board: /api/board, /api/board/cell, accept, undo
    app.include_router(camera_router)

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        """The phone page (reads its token from ``?token=``)."""
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/api/game", summary="the current game: players, totals, whose turn, board")
    def game(table: TableDep, _: Viewer) -> dict[str, Any]:
        return table.game_json()

    @app.get("/api/events", summary="the current game's events after ?since=SEQ, oldest first")
    def events(table: TableDep, _: Viewer,
               since: Annotated[int, Query(ge=0, description="only events with a larger seq")] = 0
               ) -> dict[str, Any]:
        game_id, items = table.events(since)
        return {"game_id": game_id, "events": items}

    @app.get("/api/stream", response_class=EventSourceResponse,
             summary="live updates as Server-Sent Events; Last-Event-ID resumes")
    async def stream(request: Request, table: TableDep, _: Viewer,
                     token: Annotated[str, Depends(presented_token)],
                     last_event_id: Annotated[str | None, HeaderParam()] = None,
                     since: Annotated[int | None, Query(ge=0, description="like Last-Event-ID")] = None,
                     ) -> AsyncIterator[ServerSentEvent]:
        after = since or 0
        last = (last_event_id or "").strip()
        if last.isascii() and last.isdigit() and len(last) <= 18:  # "²" is a digit to isdigit, not to int
            after = int(last)
        sub = table.bus.subscribe()
        try:
            game_id, backlog = table.events(after)
            if after > 0 and not backlog and after > table.game_json()["seq"]:
                game_id, backlog = table.events(0)  # an id from an earlier game: start this one over
            sent = after
            yield ServerSentEvent(comment="table companion", retry=SSE_RETRY_MS)
            for item in backlog:
                yield ServerSentEvent(event=item["type"], id=str(item["seq"]), data=item)
                sent = item["seq"]
            yield ServerSentEvent(event="state", data=table.game_json())
            while True:
                waited = True
                try:
                    msg = await asyncio.wait_for(sub.queue.get(), timeout=10.0)
                except TimeoutError:
                    msg, waited = None, False
                now = current_tokens(request.app)
                if not (same_token(token, now.viewer) or same_token(token, now.table)):
                    yield ServerSentEvent(event="tokens", data={"detail": REPAIR})
                    return  # the tokens were rotated: this phone must pair again
                if not waited:
                    if await request.is_disconnected():
                        return
                    continue
                if msg is None:
                    return
                if msg.event == "game":
                    if msg.game_id != game_id:  # else the backlog was already of that game
                        game_id, sent = msg.game_id, 0
                        yield _sse(msg)
                    continue
                if msg.game_id != game_id:
                    continue
                if msg.id is not None:
                    if msg.id <= sent:
                        continue  # already sent from the backlog
                    sent = msg.id
                yield _sse(msg)
        finally:
            table.bus.unsubscribe(sub)

    @app.get("/api/events/{seq}/evidence", summary="before/after pictures of an event (PNG)",
             responses={200: {"content": {"image/png": {}}}})
    def evidence(request: Request, table: TableDep, _: Viewer,
                 seq: Annotated[int, PathParam(ge=0, le=MAX_ID, description="the event's seq")],
                 which: Annotated[Literal["both", "before", "after"],
                                  Query(description="both = side by side, before on the left")] = "both",
                 game: Annotated[int | None, Query(ge=0, le=MAX_ID, description="a game id from GET /api/games "
                                                                              "(default: the current game)")] = None,
                 ) -> Response:
        store: Store = request.app.state.store
        pair = store.evidence(table.game_id if game is None else game, seq)
        if pair is None:
            raise HTTPException(404, detail=f"event {seq} has no pictures (it does not exist or was entered by hand)")
        before, after = pair
        if which == "both":
            data: bytes | None = side_by_side(before, after)
        else:
            data = before if which == "before" else after
        if data is None:
            raise HTTPException(404, detail=f"event {seq} has no {which} picture")
        # seqs restart with each game: only a URL naming the game may be cached
        cache = "private, max-age=86400" if game is not None else "no-cache"
        return Response(content=data, media_type="image/png", headers={"Cache-Control": cache})

    @app.post("/api/games", status_code=201, summary="start a new game (table token)")
    def new_game(table: TableDep, _: TableWriter,
                 body: Annotated[NewGame | None, Body()] = None) -> dict[str, Any]:
        body = body or NewGame(game=None, players=None)
        players: list[str]
        if body.players is None:
            players = list(settings.players)
        elif isinstance(body.players, int):
            if not 1 <= body.players <= 6:
                raise HTTPException(422, detail=f"players: {body.players} seats; a game has 1 to 6")
            players = [f"Player {i + 1}" for i in range(body.players)]
        else:
            players = body.players
        try:
            header = header_for(body.game or table.header.game, players, body.options, body.first_player)
            return table.new_game(header)
        except (EngineError, ValueError) as exc:
            raise HTTPException(422, detail=str(exc)) from None

    @app.post("/api/events", status_code=201, summary="enter an event by hand (table token)")
    def post_event(table: TableDep, _: TableWriter,
                   body: Annotated[Any, Body(description="one event in the record format of INTERFACES §1, "
                                                        "or {type: wild, seq, square, value}")]) -> dict[str, Any]:
        too_big = oversized(body)
        if too_big is not None:
            raise HTTPException(422, detail=f"{too_big}: an event is a few short fields")
        try:
            return table.manual(body)
        except ManualEventError as exc:
            raise HTTPException(422, detail=str(exc)) from None

    @app.get("/api/pair", summary="QR code (PNG) of the page URL with the viewer token",
             responses={200: {"content": {"image/png": {}}}})
    def pair(request: Request, _: Viewer) -> Response:
        import qrcode

        tokens = get_tokens(request)
        base = settings.public_url or _own_base(request)
        url = base.rstrip("/") + "/?token=" + tokens.viewer
        img = qrcode.make(url)
        buf = BytesIO()
        img.save(buf)
        return Response(content=buf.getvalue(), media_type="image/png", headers={"X-Pair-URL": url})

    @app.get("/api/games", summary="the games kept on this table, newest first")
    def games(request: Request, table: TableDep, _: Viewer,
              limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> dict[str, Any]:
        store: Store = request.app.state.store
        out = []
        for row, count in store.games(limit):
            out.append({"id": row.id, "game": row.header.get("game"), "players": row.header.get("players"),
                        "status": row.status, "created": row.created, "events": count,
                        "current": row.id == table.game_id})
        return {"games": out}

    @app.get("/api/export.jsonl", summary="a game's record (INTERFACES §1): the current one, or ?game=ID")
    def export_jsonl(request: Request, table: TableDep, _: Viewer,
                     game: Annotated[int | None, Query(ge=0, le=MAX_ID, description="id from GET /api/games")] = None,
                     ) -> Response:
        if game is None or game == table.game_id:
            header, evs = table.export_events()
            text = dump_record(header, evs)
        else:
            store: Store = request.app.state.store
            row = store.game(game)
            if row is None:
                raise HTTPException(404, detail=f"there is no game {game}")
            lines = [json.dumps(row.header, ensure_ascii=False)]
            lines += [json.dumps(e.line, ensure_ascii=False) for e in store.events(game)]
            text = "\n".join(lines) + "\n"
        return Response(content=text, media_type="application/jsonl",
                        headers={"Content-Disposition": f'attachment; filename="game-{game or table.game_id}.jsonl"'})

    @app.get("/api/export.blksgf", summary="the current game as played, as Blokus SGF (the Blokus games)")
    def export_sgf(table: TableDep, _: Viewer) -> Response:
        header, evs = table.played_events()
        if header.game not in SGF_GAMES:
            raise HTTPException(404, detail=f"SGF export is for {', '.join(SGF_GAMES)}; this game is {header.game}")
        try:
            text = blksgf.dumps(header, evs)
        except (EngineError, ValueError) as exc:
            raise HTTPException(422, detail=f"this game cannot be written as SGF: {exc}") from None
        return Response(content=text, media_type="application/x-blokus-sgf",
                        headers={"Content-Disposition": f'attachment; filename="game-{table.game_id}.blksgf"'})

    @app.get("/api/still", summary="the latest frame of the table (PNG)",
             responses={200: {"content": {"image/png": {}}}})
    def still(table: TableDep, _: Viewer) -> Response:
        if table.latest_frame is None:
            raise HTTPException(404, detail="no frame yet")
        return Response(content=table.latest_frame, media_type="image/png", headers={"Cache-Control": "no-store"})

    @app.get("/api/corners", summary="the board corners confirmed on the phone")
    def get_corners(request: Request, _: Viewer) -> dict[str, Any]:
        raw = request.app.state.store.get_meta("corners")
        return json.loads(raw) if raw else {"corners_px": None}

    @app.post("/api/corners", status_code=201, summary="store the board corners (table token)")
    def post_corners(request: Request, table: TableDep, _: TableWriter, body: Corners) -> dict[str, Any]:
        out: dict[str, Any] = {"corners_px": [[round(x, 1), round(y, 1)] for x, y in body.corners]}
        if table.latest_frame is not None:
            w, h = image_size(table.latest_frame)
            for x, y in body.corners:
                if not (0 <= x <= w and 0 <= y <= h):
                    raise HTTPException(422, detail=f"corner ({x}, {y}) lies outside the {w}×{h} still")
            out["image_size"] = [w, h]
        request.app.state.store.set_meta("corners", json.dumps(out))
        return out

    return app


def _own_base(request: Request) -> str:
    """This server's base URL from the socket it answers on, never from the request's Host header
    (a loopback or unknown address is replaced by the machine's LAN address)."""
    server = request.scope.get("server") or ("127.0.0.1", 80)
    host, port = str(server[0]), server[1]
    try:
        ip = ipaddress.ip_address(host)
        local = ip.is_loopback or ip.is_unspecified
    except ValueError:  # a socket path or a test client's name
        local = True
    if local:
        host = lan_address() or "127.0.0.1"
    return f"http://{url_host(host)}" + (f":{port}" if port not in (None, 80) else "")


def _sse(msg: Message) -> ServerSentEvent:
    return ServerSentEvent(event=msg.event, id=None if msg.id is None else str(msg.id), raw_data=msg.text)
