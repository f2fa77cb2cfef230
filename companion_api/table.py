"""The table loop: a source's observations are judged by the engine, stored, and published live.

One process serves one table. A :class:`Table` owns the current game's engine ``Session``, the
:class:`~companion_api.store.Store` and the :class:`~companion_api.events_bus.EventBus`; a
background thread pulls :class:`Observation`s (an event with its before/after pictures) from a
:class:`TableSource` (the simulated table now, the vision tracker for ``video:``/``camera:``)
and commits each one. Manual events from the phone go through the same :meth:`Table.submit`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

from engine.core import EngineError, Entry, Event, EventFormatError, GameState, Header, Session
from engine.core.record import parse_event_line, parse_header

from .board_watch import Watch
from .events_bus import EventBus, Message
from .store import GameRow, Store

log = logging.getLogger(__name__)


@dataclass
class Observation:
    """What a source saw: an event (or only a new frame) with before/after pictures (PNG bytes).

    ``checkpoint`` is the source's own state to keep if the event is accepted (so a restart can
    resume, e.g. the simulated racks); ``on_commit(seq, legal)`` is called once the event is stored.
    ``watch``, when given, replaces the table's watch state (what the camera sees against the record).
    """

    event: Event | None
    before_png: bytes | None = None
    after_png: bytes | None = None
    frame_png: bytes | None = None
    checkpoint: dict[str, Any] | None = None
    on_commit: Callable[[int, bool], None] | None = None
    watch: Watch | None = None


class TableView(Protocol):
    """What a source may ask of the table while it runs."""

    @property
    def header(self) -> Header: ...

    def state(self) -> GameState:
        """An independent copy of the current position."""
        ...

    def sleep(self, seconds: float) -> bool:
        """Wait; ``False`` when the source must stop (shutdown or a new game)."""
        ...


class TableSource(Protocol):
    """Produces observations for one game until it has no more or the view says stop.

    A source may also define ``on_manual(event, seq)``: told (from any thread) of each event
    entered by hand, so it can keep its own picture of the game in step.
    """

    def observations(self, view: TableView) -> Iterator[Observation]: ...


@dataclass(frozen=True)
class SourceContext:
    """What a source factory gets to build a source for one game."""

    game_id: int
    header: Header
    checkpoint: dict[str, Any] | None
    seed: int
    store: Store
    #: every event logged so far in this game, in order (seq 1 first)
    history: tuple[Event, ...] = ()


SourceFactory = Callable[[SourceContext], TableSource]


class ManualEventError(ValueError):
    """A manual event that cannot be taken (bad shape or meaning); the message says why."""


@dataclass
class _Game:
    row: GameRow
    header: Header
    session: Session
    at: list[float] = field(default_factory=list)  # commit time per seq
    evidence: set[int] = field(default_factory=set)


class Table:
    """One table's live game: judge, persist and publish every event; run the source loop."""

    def __init__(self, store: Store, bus: EventBus, source_factory: SourceFactory | None,
                 default_header: Header, seed: int = 1, new_game: bool = False, source_name: str = "sim") -> None:
        self.store = store
        self.bus = bus
        self.source_factory = source_factory
        self.default_header = default_header
        self.seed = seed
        self.source_name = source_name
        self.latest_frame: bytes | None = None
        self.source_error: str | None = None
        #: what the camera sees against the record (``board_watch``); ``ok`` until a source says otherwise
        self.watch = Watch()
        self._lock = threading.RLock()
        self._cond = threading.Condition(self._lock)
        self._stopping = False
        self._generation = 0
        self._thread: threading.Thread | None = None
        self._source: TableSource | None = None
        row = store.latest_game(unfinished_only=True, game=default_header.game)
        if new_game and row is not None:
            store.set_status(row.id, "abandoned")
            row = None
        #: whether the game was resumed from the database (else created now)
        self.resumed = row is not None
        self._game = self._load(row) if row is not None else self._create(default_header)

    # -- games -------------------------------------------------------------------------------
    def _create(self, header: Header) -> _Game:
        parse_header(header.to_json())  # validates players and options for the game
        game_id = self.store.create_game(header.to_json())
        row = self.store.game(game_id)
        assert row is not None
        return _Game(row=row, header=header, session=Session(header))

    def _load(self, row: GameRow) -> _Game:
        """Rebuild a stored game by re-submitting its events into a fresh session."""
        header = parse_header(row.header)
        game = _Game(row=row, header=header, session=Session(header))
        for ev in self.store.events(row.id):
            entry = game.session.submit(parse_event_line(ev.line, header))
            if entry.seq != ev.seq:
                raise RuntimeError(f"game {row.id}: stored seq {ev.seq} replays as {entry.seq}")
            game.at.append(ev.ts)
        game.evidence = self.store.evidence_seqs(row.id)
        return game

    @property
    def game_id(self) -> int:
        return self._game.row.id

    @property
    def header(self) -> Header:
        return self._game.header

    def new_game(self, header: Header) -> dict[str, Any]:
        """Finish the current game (``abandoned`` unless it ended) and start ``header``'s game.

        The sources restart on the new game; a source built for another game id may not fit it.
        """
        with self._cond:
            old = self._game
            new = self._create(header)  # first: a header refused (rules, store) leaves the current game as it was
            self.store.set_status(old.row.id, "finished" if old.session.outcome() is not None else "abandoned")
            self._game = new
            self._generation += 1
            self.latest_frame = None
            self.watch = Watch()
            self._cond.notify_all()
            info = self.game_json()
            self.bus.publish(Message("game", 0, info, self.game_id))
            return info

    # -- events ------------------------------------------------------------------------------
    def submit(self, obs: Observation, generation: int | None = None) -> dict[str, Any] | None:
        """Judge, store and publish one observation; the event message (``None`` if stale/no event)."""
        with self._cond:
            if generation is not None and generation != self._generation:
                return None
            if obs.frame_png is not None:
                self.latest_frame = obs.frame_png
            if obs.watch is not None:
                self.set_watch(obs.watch)
            if obs.event is None:
                return None
            game = self._game
            seq = len(game.session.entries) + 1
            event = obs.event
            has_pictures = obs.before_png is not None or obs.after_png is not None
            entry = game.session.submit(event)
            assert entry.seq == seq
            try:
                at = self.store.append_event(
                    game.row.id, seq, event.to_json(), entry.to_json(), obs.before_png, obs.after_png,
                    source_state=obs.checkpoint if entry.verdict.legal else None, status=self._status(game))
            except Exception:
                self._game = self._load(game.row)  # the session must hold only what is stored
                raise
            game.at.append(at)
            if has_pictures:
                game.evidence.add(seq)
            message = self._event_message(game, entry)
            self.bus.publish(Message(message["type"], seq, message, game.row.id))
            self.bus.publish(Message("state", None, self.game_json(), game.row.id))
        if obs.on_commit is not None:
            obs.on_commit(seq, entry.verdict.legal)
        return message

    def trust_record(self, cells: list[str]) -> bool:
        """The players say the record is right on ``cells`` and the camera wrong: tell the source
        (a tracker that can take it stops seeing those cells as a difference); whether one was told."""
        with self._lock:
            source = self._source
        tell = getattr(source, "trust_record", None)
        if not callable(tell):
            return False
        tell(list(cells))
        return True

    def set_watch(self, watch: Watch) -> None:
        """Replace the watch state; phones get a ``state`` message when what they show changes."""
        with self._cond:
            changed = not watch.same_as(self.watch)
            self.watch = watch
            if changed:
                self.bus.publish(Message("state", None, self.game_json(), self._game.row.id))

    @staticmethod
    def _status(game: _Game) -> str:
        """``finished`` once the game has ended and no player still owes a reveal, else ``playing``."""
        summary = game.session.summary_json()
        return "finished" if summary.get("ended") and not summary.get("reveals_pending") else "playing"

    def manual(self, obj: Any) -> dict[str, Any]:
        """Take one event typed on the phone (record format of INTERFACES §1, ``source: manual``).

        Besides the game's own event types this accepts ``{"type": "wild", "seq": N, "square": S,
        "value": V}``: declare the value of the wild placed on ``S`` by event ``N``, sent on as a
        ``correct`` of event ``N``.
        """
        if not isinstance(obj, dict):
            raise ManualEventError("the body must be one JSON object: an event in the record format")
        obj = dict(obj)
        obj.setdefault("source", "manual")
        with self._cond:
            if obj.get("type") == "wild":
                obj = self._wild_to_correct(obj)
            try:
                event = parse_event_line(obj, self.header)
            except (EngineError, ValueError, TypeError) as exc:
                raise ManualEventError(str(exc)) from None
            message = self.submit(Observation(event=event))
            assert message is not None
            notify = getattr(self._source, "on_manual", None)
            if callable(notify):
                notify(event, message["seq"])
        return message

    def _wild_to_correct(self, obj: dict[str, Any]) -> dict[str, Any]:
        seq, square, value = obj.get("seq"), obj.get("square"), obj.get("value")
        if not isinstance(seq, int) or isinstance(seq, bool):
            raise ManualEventError('a wild value needs "seq": the number of the event that placed the wild')
        if not isinstance(square, str):
            raise ManualEventError('a wild value needs "square": where the wild lies, like "H8"')
        if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= 15:
            raise ManualEventError('a wild value needs "value": the declared value, a whole number 0-15')
        entries = self._game.session.entries
        if not 1 <= seq <= len(entries):
            raise ManualEventError(f"there is no event {seq}")
        line = entries[seq - 1].event.to_json()
        tiles = line.get("tiles")
        if line.get("type") != "place" or not isinstance(tiles, list):
            raise ManualEventError(f"event {seq} is a {line.get('type')}, not a placement with tiles")
        hit = [t for t in tiles if isinstance(t, dict) and str(t.get("square", "")).upper() == square.upper()]
        if not hit:
            raise ManualEventError(f"event {seq} placed nothing on {square}")
        hit[0]["value"] = value
        hit[0]["wild"] = True
        for key in ("ts", "source", "confidence", "frame", "evidence"):
            line.pop(key, None)
        out: dict[str, Any] = {"type": "correct", "seq": seq, "event": line, "source": "manual"}
        if "player" in obj:
            out["player"] = obj["player"]
        return out

    # -- reading -----------------------------------------------------------------------------
    def _event_message(self, game: _Game, entry: Entry) -> dict[str, Any]:
        """An event as the API shows it: record line + check line (INTERFACES §4 / §5)."""
        out = entry.event.to_json()
        out.update(entry.to_json())
        out["totals"] = list(entry.totals)
        if not entry.verdict.legal:
            out["attempt"] = out["type"]
            out["type"] = "illegal"
        if entry.seq in game.evidence:
            out["evidence"] = str(entry.seq)
        out["at"] = game.at[entry.seq - 1] if entry.seq <= len(game.at) else None
        return out

    def events(self, since: int = 0) -> tuple[int, list[dict[str, Any]]]:
        """The current game's id and its events after ``since``, as judged now (after corrections)."""
        with self._lock:
            game = self._game
            return game.row.id, [self._event_message(game, e) for e in game.session.entries[max(0, since):]]

    def game_json(self) -> dict[str, Any]:
        """The state shown by ``GET /api/game`` and the ``state`` stream messages."""
        with self._lock:
            game = self._game
            session = game.session
            state = session.state
            summary = session.summary_json()
            out: dict[str, Any] = dict(state.status_json())
            out.update({k: v for k, v in summary.items() if k not in ("summary",)})
            ended = bool(summary.get("ended"))
            turn = None if ended else state.to_move().to_json()
            status = self._status(game)
            if turn is not None and turn.get("player") is not None and 0 <= turn["player"] < len(game.header.players):
                turn["name"] = game.header.players[turn["player"]]
            out.update({
                "id": game.row.id,
                "game": game.header.game,
                "title": getattr(state, "TITLE", game.header.game),
                "players": list(game.header.players),
                "header": game.header.to_json(),
                "status": status,
                "seq": len(session.entries),
                "totals": state.totals(),
                "turn": turn,
                "board": state.board_json(),
                "source": self.source_name,
                "source_error": self.source_error,
                "watch": self.watch.to_json(),
            })
            return out

    def played_events(self) -> tuple[Header, list[Event]]:
        """The game as played: corrections and undos applied, illegal attempts left out."""
        with self._lock:
            return self.header, [ev for _seq, ev in self.effective_moves()]

    def effective_moves(self) -> list[tuple[int, Event]]:
        """The legal game events as they now stand (corrections applied, undone ones left out), by seq."""
        with self._lock:
            session = self._game.session
            return [(seq, ev) for seq, ev in session.effective_events() if session.entries[seq - 1].verdict.legal]

    def export_events(self) -> tuple[Header, list[Event]]:
        """Every logged event of the current game, as submitted (so correction seqs stay valid)."""
        with self._lock:
            return self.header, [e.event for e in self._game.session.entries]

    # -- the loop ----------------------------------------------------------------------------
    def start(self) -> None:
        """Run the source in a background thread (no-op without a source)."""
        if self.source_factory is None or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._run, name="table-loop", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 5.0) -> None:
        with self._cond:
            self._stopping = True
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None

    def _run(self) -> None:
        assert self.source_factory is not None
        while True:
            with self._lock:
                if self._stopping:
                    return
                generation = self._generation
                row = self.store.game(self.game_id)
                assert row is not None
                ctx = SourceContext(game_id=row.id, header=self.header, checkpoint=row.source_state,
                                    seed=self.seed, store=self.store,
                                    history=tuple(e.event for e in self._game.session.entries))
            view = _View(self, generation)
            try:
                source = self.source_factory(ctx)
                with self._lock:
                    self._source = source if self._alive(generation) else None
                for obs in source.observations(view):
                    if not view.alive():
                        break
                    self.submit(obs, generation)
            except Exception as exc:  # a source failing must not take the server down
                log.exception("table source failed")
                self.source_error = f"{type(exc).__name__}: {exc}"
            self._idle(generation)

    def _idle(self, generation: int) -> None:
        """Wait until a new game starts or the table stops."""
        with self._cond:
            self._cond.wait_for(lambda: not self._alive(generation))

    def _alive(self, generation: int) -> bool:
        return not self._stopping and generation == self._generation

    def _sleep(self, seconds: float, generation: int) -> bool:
        with self._cond:
            self._cond.wait_for(lambda: not self._alive(generation), timeout=seconds)
            return self._alive(generation)

    def _state_copy(self) -> GameState:
        with self._lock:
            return self._game.session.state.copy()


class _View:
    """A source's handle on the table for one game (``generation``)."""

    def __init__(self, table: Table, generation: int) -> None:
        self._table = table
        self._generation = generation
        self._header = table.header

    @property
    def header(self) -> Header:
        return self._header

    def state(self) -> GameState:
        return self._table._state_copy()

    def sleep(self, seconds: float) -> bool:
        return self._table._sleep(seconds, self._generation)

    def alive(self) -> bool:
        return self._table._alive(self._generation)


def header_for(game: str, players: list[str], options: dict[str, Any] | None = None,
               first_player: int = 0) -> Header:
    """A validated header for a new game; ``EventFormatError`` names what is wrong."""
    obj = {"format": "table-companion/1", "game": game, "players": players, "options": options or {},
           "first_player": first_player}
    try:
        return parse_header(obj)
    except EngineError:
        raise
    except (KeyError, ValueError, TypeError) as exc:
        raise EventFormatError(str(exc)) from None
