"""The hub's web app (``companion hub``): a scoreboard of every table, live, read-only (INTERFACES §6).

Its lifespan connects an MQTT client that subscribes to the club's ``state`` and ``events`` topics
and feeds a :class:`~companion_api.hub.board.Board`; changes fan out to the scoreboard pages over
Server-Sent Events. The hub never writes to a table's game: the only thing it publishes is a
request that a table send again events the hub is missing.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Annotated, Any

from fastapi import FastAPI, HTTPException, Query, Request
from fastapi import Path as PathParam
from fastapi.responses import FileResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi.staticfiles import StaticFiles

from ..events_bus import EventBus, Message
from .board import Board
from .broker import GAME_PROPERTY, ROOT, BrokerConfig, make_client, topic

log = logging.getLogger(__name__)

STATIC = Path(__file__).parent / "static"
#: Reconnect delay suggested to EventSource clients (ms).
SSE_RETRY_MS = 2000
#: How often quiet tables and missing events are looked for (s).
TICK_SECONDS = 1.0


class HubClient:
    """The hub's MQTT connection: subscribes on connect, feeds the board, publishes its changes."""

    def __init__(self, broker: BrokerConfig, club: str | None, board: Board, bus: EventBus) -> None:
        self.broker = broker
        self.club = club
        self.board = board
        self.bus = bus
        self.connected = False
        self.error: str | None = None
        self._client = make_client(broker, client_id=f"companion-hub-{secrets.token_hex(6)}")
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_message = self._on_message
        board.ask = self.ask

    def start(self) -> None:
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self._client.loop_start()

    def stop(self) -> None:
        self._client.disconnect()
        self._client.loop_stop()

    def ask(self, club: str, table: str, game_id: int, since: int) -> None:
        """Ask a table for its events after ``since`` again (QoS 1, not retained)."""
        body = json.dumps({"game_id": game_id, "since": since})
        self._client.publish(topic(club, table, "resend"), body, qos=1)

    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if reason.is_failure:
            self.error = f"the broker refused the connection: {reason}"
            log.warning("hub: %s", self.error)
            return
        self.connected, self.error = True, None
        club = self.club or "+"
        client.subscribe([(f"{ROOT}/{club}/+/state", 1), (f"{ROOT}/{club}/+/events", 1)])
        self.bus.publish(Message("hub", None, {"broker": True}))

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, _reason: Any, _props: Any) -> None:
        if self.connected:
            self.bus.publish(Message("hub", None, {"broker": False}))
        self.connected = False

    def _on_message(self, _client: Any, _userdata: Any, message: Any) -> None:
        parts = message.topic.split("/")
        if len(parts) != 4 or parts[0] != ROOT:
            return
        _, club, name, kind = parts
        try:
            if kind == "state":
                card = self.board.on_state(club, name, message.payload)
                if card is not None:
                    self.bus.publish(Message("table", None, card))
            elif kind == "events":
                moved = self.board.on_event(club, name, message.payload, _game_id(message))
                if moved is not None:
                    self.bus.publish(Message("move", None, moved))
        except Exception:  # one bad message must not stop the scoreboard
            log.exception("hub: message on %s", message.topic)


def _game_id(message: Any) -> int | None:
    props = getattr(message, "properties", None)
    for key, value in getattr(props, "UserProperty", None) or []:
        if key == GAME_PROPERTY and value.isdigit():
            return int(value)
    return None


def create_hub_app(broker: BrokerConfig, club: str | None = None, quiet_after: float = 90.0) -> FastAPI:
    """The scoreboard app for the tables of ``club`` (every club when ``None``) on ``broker``."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        board = Board(quiet_after=quiet_after)
        bus = EventBus()
        client = HubClient(broker, club, board, bus)
        app.state.board, app.state.bus, app.state.client = board, bus, client
        client.start()
        ticker = asyncio.create_task(_tick(board, bus))
        try:
            yield
        finally:
            ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await ticker
            client.stop()
            bus.close()

    app = FastAPI(title="Table Companion hub", version="1", lifespan=lifespan,
                  description="A club's tables on one scoreboard, read-only.")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        """The scoreboard page for a big screen."""
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/api/tables", summary="every table: its latest /api/game state and when it was last heard")
    def tables(request: Request) -> dict[str, Any]:
        board: Board = request.app.state.board
        return {"tables": board.tables()}

    @app.get("/api/tables/{name}/events", summary="a table's events of its current game, by seq, each once")
    def table_events(request: Request, name: Annotated[str, PathParam(max_length=64)],
                     club_name: Annotated[str | None, Query(alias="club", max_length=64)] = None) -> dict[str, Any]:
        board: Board = request.app.state.board
        try:
            events = board.events(name, club_name)
        except LookupError as exc:
            raise HTTPException(409, detail=str(exc)) from None
        if events is None:
            raise HTTPException(404, detail=f"no table named {name!r} has been heard from")
        return {"events": events}

    @app.get("/api/stream", response_class=EventSourceResponse,
             summary="live scoreboard: a `tables` snapshot, then `table`, `move` and `hub` messages")
    async def stream(request: Request) -> AsyncIterator[ServerSentEvent]:
        board: Board = request.app.state.board
        bus: EventBus = request.app.state.bus
        client: HubClient = request.app.state.client
        sub = bus.subscribe()
        try:
            yield ServerSentEvent(comment="table companion hub", retry=SSE_RETRY_MS)
            yield ServerSentEvent(event="tables", data={"tables": board.tables(full=False), "now": time.time(),
                                                        "broker": client.connected})
            while True:
                try:
                    msg = await asyncio.wait_for(sub.queue.get(), timeout=10.0)
                except TimeoutError:
                    if await request.is_disconnected():
                        return
                    continue
                if msg is None:
                    return
                yield ServerSentEvent(event=msg.event, raw_data=msg.text)
        finally:
            bus.unsubscribe(sub)

    return app


async def _tick(board: Board, bus: EventBus) -> None:
    while True:
        await asyncio.sleep(TICK_SECONDS)
        for card in board.tick():
            bus.publish(Message("table", None, card))
