"""Helpers for the companion API tests: a tiny rack game, apps on temp databases, SSE parsing.

``api_tiles`` is a test-only game shaped like Triolet (tiles on named squares, racks, exchange,
pass, reveal) on a 5×5 board, so the server and the simulated table can be tested without
depending on a real game's rules.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from companion_api.settings import Settings
from companion_api.table import SourceContext, TableSource
from engine.core import (
    Event,
    Exchange,
    GameState,
    Header,
    Outcome,
    Pass,
    Reason,
    Reveal,
    ScoreItem,
    Turn,
    Verdict,
    register,
)
from engine.core.errors import EventFormatError
from engine.core.events import parse_common, parse_meta
from engine.core.fields import get_int, get_list
from lab.sim.table import SimulatedTable, TileSet

GAME = "api_tiles"
SIZE = 5
COUNTS = {v: 3 for v in range(10)}
TILES = TileSet(counts=COUNTS, wilds=0, rack=3, unseen=3, board_size=SIZE)
PLACEMENTS_TO_END = 8


@dataclass(frozen=True)
class TPlace(Event):
    """Put tiles on squares (only one per turn is legal here)."""

    TYPE: ClassVar[str] = "place"
    tiles: tuple[tuple[str, int], ...] = ()

    def body_json(self) -> dict[str, Any]:
        return {"tiles": [{"square": s, "value": v} for s, v in self.tiles]}


def _square(text: Any) -> str:
    if not (isinstance(text, str) and len(text) == 2 and text[0] in "ABCDE" and text[1] in "12345"):
        raise EventFormatError(f"{text!r} is not a square of the 5×5 board (A1-E5)")
    return text


@register
class TilesGame(GameState):
    """One tile per turn on a 5×5 board, scoring its value; exchange when the bag holds ≥ 5."""

    GAME_ID = GAME
    TITLE = "Tiles (API test game)"

    def __init__(self, header: Header) -> None:
        super().__init__(header)
        n = len(header.players)
        self.board: dict[str, int] = {}
        self.scores = [0] * n
        self.turn = header.first_player
        self.bag = sum(COUNTS.values()) - TILES.unseen - TILES.rack * n
        self.racks = [TILES.rack] * n
        self.placements = 0
        self.revealed: set[int] = set()

    @classmethod
    def parse_event(cls, obj: dict[str, Any], header: Header) -> Event:
        n = len(header.players)
        common = parse_common(obj, n, lambda o: cls.parse_event(o, header))
        if common is not None:
            return common
        kind = obj["type"]
        player = get_int(obj, "player", lo=0, hi=n - 1)
        if kind == "pass":
            return Pass(player=player, meta=parse_meta(obj))
        if kind == "exchange":
            return Exchange(player=player, count=get_int(obj, "count", lo=1, hi=3), meta=parse_meta(obj))
        if kind == "place":
            raw = get_list(obj, "tiles", min_len=1, max_len=3)
            tiles = []
            for t in raw:
                if not isinstance(t, dict):
                    raise EventFormatError("each tile must be an object {square, value}")
                tiles.append((_square(t.get("square")), get_int(t, "value", lo=0, hi=9)))
            return TPlace(player=player, tiles=tuple(tiles), meta=parse_meta(obj))
        raise EventFormatError(f"unknown event type {kind!r}")

    def check(self, event: Event) -> Verdict:
        p = event.player
        if isinstance(event, Reveal):
            if self.outcome() is None:
                return Verdict.illegal(p, Reason("X-E", "not_ended", "reveal only after the end"))
            if p in self.revealed:
                return Verdict.illegal(p, Reason("X-E", "revealed", "already revealed"))
            return Verdict(True, p)
        if self.outcome() is not None:
            return Verdict.illegal(p, Reason("X-E", "game_over", "the game is over"))
        if p != self.turn:
            return Verdict.illegal(p, Reason("X-T", "not_your_turn", "it is not your turn"))
        if isinstance(event, TPlace):
            if len(event.tiles) != 1:
                return Verdict.illegal(p, Reason("X-P", "one_tile", "place exactly one tile"))
            square, value = event.tiles[0]
            if square in self.board:
                return Verdict.illegal(p, Reason("X-P", "occupied", f"{square} is taken", (square,)))
            return Verdict(True, p, breakdown=(ScoreItem("tile", value, "X-S", (square,)),))
        if isinstance(event, Exchange):
            if self.bag < 5:
                return Verdict.illegal(p, Reason("X-X", "bag_low", "exchange needs 5 in the bag"))
            return Verdict(True, p)
        if isinstance(event, Pass):
            if self.bag >= 5:
                return Verdict.illegal(p, Reason("X-X", "must_play", "no pass while the bag holds 5"))
            return Verdict(True, p)
        return Verdict.illegal(p, Reason("X-T", "unsupported", f"no {event.type} in this game"))

    def _push(self, event: Event, verdict: Verdict) -> None:
        assert event.player is not None
        if isinstance(event, Reveal):
            self.revealed.add(event.player)
            return
        if isinstance(event, TPlace):
            square, value = event.tiles[0]
            self.board[square] = value
            self.placements += 1
            self.scores[event.player] += verdict.score
            drawn = min(1, self.bag)
            self.bag -= drawn
        self.turn = (self.turn + 1) % len(self.scores)

    def to_move(self) -> Turn:
        return Turn(player=self.turn)

    def totals(self) -> list[int]:
        return list(self.scores)

    def outcome(self) -> Outcome | None:
        if self.placements < PLACEMENTS_TO_END:
            return None
        best = max(self.scores)
        return Outcome("X-E", tuple(i for i, s in enumerate(self.scores) if s == best), tuple(self.scores))

    def legal_placements(self, hand: Any = None) -> Iterator[Event]:
        for value in sorted({int(v) for v in hand or ()}):
            for c in "ABCDE":
                for r in "12345":
                    if c + r not in self.board:
                        yield TPlace(player=self.turn, tiles=((c + r, value),))

    @classmethod
    def parse_hand(cls, text: str) -> Any:
        return tuple(int(v) for v in text.split(",") if v)

    def status_json(self) -> dict[str, Any]:
        return {"bag": self.bag}

    def summary_json(self) -> dict[str, Any]:
        ended = self.outcome() is not None
        return {"reveals_pending": [p for p in range(len(self.scores)) if ended and p not in self.revealed]}

    def board_json(self) -> dict[str, Any]:
        return {"squares": dict(self.board)}


def header(players: int = 2) -> Header:
    return Header(game=GAME, players=tuple(f"P{i + 1}" for i in range(players)))


def sim_factory(interval: float) -> Any:
    """A simulated table for ``api_tiles`` moving every ``interval`` seconds."""

    def make(ctx: SourceContext) -> TableSource:
        return SimulatedTable(ctx, interval=interval, tiles=TILES)

    return make


def settings(db: Path, **kw: Any) -> Settings:
    base: dict[str, Any] = {"game": GAME, "players": ["P1", "P2"], "db": db}
    base.update(kw)
    return Settings(**base)


def parse_sse(lines: Iterator[str], count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
    """Read ``count`` SSE messages (dicts with event, id, data) from a line iterator."""
    out: list[dict[str, Any]] = []
    msg: dict[str, Any] = {}
    deadline = time.monotonic() + timeout
    for line in lines:
        if time.monotonic() > deadline:
            raise TimeoutError(f"only {len(out)} of {count} SSE messages")
        if line == "":
            if "data" in msg or "event" in msg:
                out.append(msg)
                if len(out) >= count:
                    return out
            msg = {}
            continue
        if line.startswith(":"):
            continue
        key, _, value = line.partition(":")
        value = value[1:] if value.startswith(" ") else value
        if key == "data":
            msg["data"] = json.loads(value)
        elif key in ("event", "id", "retry"):
            msg[key] = value
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def live_server(app: Any, port: int) -> Iterator[str]:
    """Run ``app`` on uvicorn in a thread on 127.0.0.1:``port``; yields the base URL."""
    import uvicorn

    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", timeout_graceful_shutdown=1)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started:
        if time.monotonic() > deadline or not thread.is_alive():
            raise RuntimeError("uvicorn did not start")
        time.sleep(0.02)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(10)


def header_for_game(game: str, players: tuple[str, ...] = ("Ana", "Ben")) -> Header:
    return Header(game=game, players=players)
