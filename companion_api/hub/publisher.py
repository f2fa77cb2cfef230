"""The table side of the hub (``companion serve --hub``): publish every committed event to the broker.

Each event the table commits goes into the :class:`~companion_api.hub.outbox.Outbox` (same SQLite
file) and a publisher thread sends it with QoS 1 to ``tc/CLUB/TABLE/events``, in commit order,
deleting the row when the broker acknowledges it (``on_publish``). While the broker is away the
table scores on and rows pile up; once it is back they go out in seq order. After the events the
table's ``/api/game`` object is published, retained, to ``tc/CLUB/TABLE/state`` (again on every
reconnect, so a broker that restarted empty learns it, and every ``HEARTBEAT_S`` seconds without
news, so the hub can tell a quiet table from a thinking one). A hub that finds a hole in a table's seqs
asks on ``tc/CLUB/TABLE/resend`` (``{"game_id": G, "since": SEQ}``) and gets the current game's
events after SEQ again; nothing a hub sends can change the game.
"""

from __future__ import annotations

import collections
import json
import logging
import threading
import time
from typing import Any, Protocol

from ..events_bus import EventBus, Message
from .broker import GAME_PROPERTY, BrokerConfig, make_client, topic
from .outbox import Outbox

log = logging.getLogger(__name__)

#: Events handed to the MQTT client and not yet acknowledged, at most.
WINDOW = 100
#: The state is published again after this many seconds without news, so the hub can tell a table
#: whose players are thinking from one it has lost contact with.
HEARTBEAT_S = 30.0
#: Bus messages that are not events.
NOT_EVENTS = ("state", "game")


class TableLike(Protocol):
    """What the publisher reads from the table."""

    @property
    def game_id(self) -> int: ...

    def events(self, since: int = 0) -> tuple[int, list[dict[str, Any]]]: ...

    def game_json(self) -> dict[str, Any]: ...


def game_properties(game_id: int) -> Any:
    """MQTT v5 PUBLISH properties naming the game an event belongs to."""
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    props = Properties(PacketTypes.PUBLISH)  # type: ignore[no-untyped-call]
    props.UserProperty = (GAME_PROPERTY, str(game_id))
    return props


class HubPublisher:
    """Publishes one table's events and state to the broker; start with :meth:`start`."""

    def __init__(self, table: TableLike, bus: EventBus, outbox: Outbox, broker: BrokerConfig,
                 club: str, name: str) -> None:
        self.table = table
        self.bus = bus
        self.outbox = outbox
        self.broker = broker
        self.club = club
        self.name = name
        self.events_topic = topic(club, name, "events")
        self.state_topic = topic(club, name, "state")
        self.resend_topic = topic(club, name, "resend")
        self.connected = threading.Event()
        #: last refusal or failure told by the broker (``None`` while all is well)
        self.error: str | None = None
        self._wake = threading.Event()
        self._stopping = False
        self._state_dirty = True
        self._acked: collections.deque[tuple[int, bool]] = collections.deque()
        self._resend: collections.deque[tuple[int, int]] = collections.deque()
        self._inflight: dict[int, int] = {}  # MQTT mid -> outbox row id (publisher thread only)
        self._cursor = 0  # last outbox row id handed to the client
        self._state_sent = 0.0  # time.monotonic() of the last state published
        self._thread: threading.Thread | None = None
        self._client = make_client(broker, client_id=f"companion-table-{club}-{name}")
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message

    # -- life --------------------------------------------------------------------------------
    def start(self) -> None:
        """Start listening to the table and publishing (connects in the background)."""
        self.bus.add_listener(self._on_bus)
        self._client.connect_async(self.broker.host, self.broker.port, keepalive=15)
        self._client.loop_start()
        self._thread = threading.Thread(target=self._run, name="hub-publisher", daemon=True)
        self._thread.start()

    def stop(self, timeout: float = 3.0) -> None:
        """Stop publishing; what the broker has not acknowledged stays in the outbox."""
        self.bus.remove_listener(self._on_bus)
        self._stopping = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout)
            self._thread = None
        self._client.disconnect()
        self._client.loop_stop()
        self.outbox.close()

    # -- from the table (its thread, while it commits) ----------------------------------------
    def _on_bus(self, msg: Message) -> None:
        if msg.event in NOT_EVENTS or msg.id is None:
            self._state_dirty = True
        else:
            self.outbox.add(msg.game_id, msg.id, msg.text)
        self._wake.set()

    # -- from the MQTT client's thread (keep short: paho holds its locks) --------------------
    def _on_connect(self, client: Any, _userdata: Any, _flags: Any, reason: Any, _props: Any) -> None:
        if reason.is_failure:
            self.error = f"the broker refused the connection: {reason}"
            log.warning("hub: %s", self.error)
            return
        self.error = None
        client.subscribe(self.resend_topic, qos=1)
        self._state_dirty = True
        self.connected.set()
        self._wake.set()

    def _on_disconnect(self, _client: Any, _userdata: Any, _flags: Any, _reason: Any, _props: Any) -> None:
        self.connected.clear()

    def _on_publish(self, _client: Any, _userdata: Any, mid: int, reason: Any, _props: Any) -> None:
        self._acked.append((mid, not reason.is_failure))
        self._wake.set()

    def _on_message(self, _client: Any, _userdata: Any, message: Any) -> None:
        try:
            obj = json.loads(message.payload)
            game_id, since = int(obj["game_id"]), int(obj.get("since", 0))
        except (ValueError, TypeError, KeyError):
            return  # not a resend request: nothing to do
        self._resend.append((game_id, max(0, since)))
        self._wake.set()

    # -- the publisher thread ----------------------------------------------------------------
    def _run(self) -> None:
        self._cursor = 0
        while not self._stopping:
            self._wake.wait(1.0)
            self._wake.clear()
            try:
                self._take_acks()
                if time.monotonic() - self._state_sent > HEARTBEAT_S:
                    self._state_dirty = True
                if self.connected.is_set():
                    self._answer_resends()
                    self._hand_over()
            except Exception:  # the table must keep scoring whatever the network does
                log.exception("hub publisher step failed")

    def _take_acks(self) -> None:
        done: list[int] = []
        while self._acked:
            mid, ok = self._acked.popleft()
            row = self._inflight.pop(mid, None)
            if row is None:
                continue  # a resent event (not tracked) or the state
            if ok:
                done.append(row)
            else:
                self.error = "the broker did not take an event (check its access rules)"
                log.warning("hub: %s", self.error)
        self.outbox.acknowledge(done)

    def _hand_over(self) -> None:
        room = WINDOW - len(self._inflight)
        rows = self.outbox.pending(self._cursor, room) if room > 0 else []
        for row in rows:
            info = self._client.publish(self.events_topic, row.payload, qos=1,
                                        properties=game_properties(row.game_id))
            self._inflight[info.mid] = row.id
            self._cursor = row.id
        if self._state_dirty and not self.outbox.pending(self._cursor, 1):
            self._state_dirty = False
            self._state_sent = time.monotonic()
            state = json.dumps(self.table.game_json(), ensure_ascii=False, separators=(",", ":"))
            self._client.publish(self.state_topic, state, qos=1, retain=True)

    def _answer_resends(self) -> None:
        asks: dict[int, int] = {}
        while self._resend:
            game_id, since = self._resend.popleft()
            asks[game_id] = min(since, asks.get(game_id, since))
        if not asks:
            return
        current = self.table.game_id
        since = asks.get(current, 0)  # a hub still on an older game gets the current one whole
        game_id, events = self.table.events(since)
        props = game_properties(game_id)
        for item in events:
            text = json.dumps(item, ensure_ascii=False, separators=(",", ":"))
            self._client.publish(self.events_topic, text, qos=1, properties=props)
        self._state_dirty = True


def start_publisher(link: Any, db_path: Any, table: TableLike, bus: EventBus) -> HubPublisher:
    """Open the outbox in the table's database and start publishing (call before the table starts)."""
    publisher = HubPublisher(table, bus, Outbox(db_path), link.broker, link.club, link.table)
    publisher.start()
    return publisher
