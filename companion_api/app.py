"""The FastAPI app of one table: the phone page, the JSON API and live updates (INTERFACES §5)."""

from __future__ import annotations

import asyncio
import importlib
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
from pydantic import BaseModel, ConfigDict, Field

from engine.core import EngineError
from engine.core.record import dump_record

from .auth import TableWriter, Viewer, get_tokens
from .board_picture import image_size, side_by_side
from .events_bus import EventBus, Message
from .settings import Settings
from .sources import build_source, parse_source
from .store import Store
from .table import ManualEventError, SourceFactory, Table, header_for

STATIC = Path(__file__).parent / "static"
#: Games the phone page can download as Blokus SGF (engine.blksgf writes them).
SGF_GAMES = ("trigon", "blokus", "blokus_duo")
#: Largest id or seq a request may name (SQLite's INTEGER).
MAX_ID = 2**63 - 1

#: Reconnect delay suggested to EventSource clients (ms).
SSE_RETRY_MS = 2000


class NewGame(BaseModel):
    """Body of ``POST /api/games``; anything left out comes from the server's settings."""

    model_config = ConfigDict(extra="forbid")
    game: str | None = Field(None, description="game id (triolet, trigon, triominos, trio_domino)")
    players: list[str] | int | None = Field(None, description="seat names, or a number of seats")
    options: dict[str, Any] = Field(default_factory=dict)
    first_player: int = 0


class Corners(BaseModel):
    """Body of ``POST /api/corners``: the board's 4 corners in pixels of ``GET /api/still``."""

    model_config = ConfigDict(extra="forbid")
    corners: list[tuple[float, float]] = Field(min_length=4, max_length=4,
                                               description="[[x, y] ×4] clockwise from the top-left one")


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
        if settings.announce:
            what = "resuming" if table.resumed else "new"
            print(f"companion serve: {what} {table.header.game} game {table.game_id} "
                  f"({table.game_json()['seq']} events so far), source {settings.source}", file=sys.stderr, flush=True)
        table.start()
        try:
            yield
        finally:
            table.stop()
            bus.close()
            store.close()

    app = FastAPI(title="Table Companion", version="1", lifespan=lifespan,
                  description="One table's referee and scorekeeper: live scores, move history, evidence.")
    app.state.settings = settings

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = []
        for err in exc.errors():
            where = ".".join(str(p) for p in err.get("loc", ()))
            problems.append(f"{where}: {err.get('msg', 'invalid')}")
        return JSONResponse(status_code=422, content={"detail": "; ".join(problems) or "invalid request",
                                                      "errors": jsonable_encoder(exc.errors())})

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

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
                     last_event_id: Annotated[str | None, HeaderParam()] = None,
                     since: Annotated[int | None, Query(ge=0, description="like Last-Event-ID")] = None,
                     ) -> AsyncIterator[ServerSentEvent]:
        after = since or 0
        if last_event_id is not None and last_event_id.strip().isdigit():
            after = int(last_event_id.strip())
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
                try:
                    msg = await asyncio.wait_for(sub.queue.get(), timeout=10.0)
                except TimeoutError:
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
        try:
            return table.manual(body)
        except ManualEventError as exc:
            raise HTTPException(422, detail=str(exc)) from None

    @app.get("/api/pair", summary="QR code (PNG) of the page URL with the viewer token",
             responses={200: {"content": {"image/png": {}}}})
    def pair(request: Request, _: Viewer) -> Response:
        import qrcode

        tokens = get_tokens(request)
        base = settings.public_url or str(request.base_url)
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
        writer = _sgf_writer()
        if writer is None:
            raise HTTPException(501, detail="the Blokus SGF writer (engine.blksgf) is not available yet")
        try:
            text = writer(header, evs)
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


def _sse(msg: Message) -> ServerSentEvent:
    return ServerSentEvent(event=msg.event, id=None if msg.id is None else str(msg.id), raw_data=msg.text)


def _sgf_writer() -> Any:
    """The Blokus SGF writer ``f(header, events) -> str`` if the engine has one."""
    try:
        module = importlib.import_module("engine.blksgf")
    except ImportError:
        return None
    for name in ("dump_sgf", "write_sgf_text", "to_sgf", "format_sgf", "dumps"):
        fn = getattr(module, name, None)
        if callable(fn):
            return fn
    return None
