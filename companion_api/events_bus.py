"""In-process publish/subscribe for live updates: the table loop publishes, SSE streams subscribe.

Publishers may run in any thread; each subscriber is an ``asyncio.Queue`` fed on its own event
loop. A subscriber that falls too far behind is dropped (told with a ``None``) rather than
letting memory grow; the page then reconnects with ``Last-Event-ID`` and catches up.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

log = logging.getLogger(__name__)

#: Messages a subscriber may hold before it is considered gone.
QUEUE_LIMIT = 1000


@dataclass(frozen=True)
class Message:
    """One live update: an SSE ``event`` name, an ``id`` (the event's seq, or ``None``) and data."""

    event: str
    id: int | None
    data: dict[str, Any]
    game_id: int = 0

    @cached_property
    def text(self) -> str:
        """``data`` as JSON, encoded once however many subscribers send it."""
        return json.dumps(self.data, ensure_ascii=False, separators=(",", ":"))


@dataclass(eq=False)
class Subscription:
    """A subscriber's queue; ``None`` in it means the bus dropped or closed it."""

    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue[Message | None] = field(default_factory=lambda: asyncio.Queue(QUEUE_LIMIT + 1))
    dropped: bool = False


class EventBus:
    """Fan live messages out to every subscriber."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._subs: set[Subscription] = set()
        self._listeners: list[Callable[[Message], None]] = []

    def subscribe(self) -> Subscription:
        """A new subscription on the running event loop (call from async code)."""
        sub = Subscription(loop=asyncio.get_running_loop())
        with self._lock:
            self._subs.add(sub)
        return sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            self._subs.discard(sub)

    def add_listener(self, listener: Callable[[Message], None]) -> None:
        """Call ``listener(message)`` in the publishing thread for every message, in publish order
        (it must be quick: it runs while the table commits)."""
        with self._lock:
            self._listeners.append(listener)

    def remove_listener(self, listener: Callable[[Message], None]) -> None:
        with self._lock:
            if listener in self._listeners:
                self._listeners.remove(listener)

    @property
    def subscribers(self) -> int:
        with self._lock:
            return len(self._subs)

    def publish(self, message: Message) -> None:
        """Deliver ``message`` to every subscriber (from any thread)."""
        with self._lock:
            subs = list(self._subs)
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(message)
            except Exception:  # a listener failing must not stop the table
                log.exception("event bus listener failed")
        for sub in subs:
            try:
                sub.loop.call_soon_threadsafe(self._deliver, sub, message)
            except RuntimeError:  # its loop is closed
                self.unsubscribe(sub)

    def close(self) -> None:
        """End every subscription (server shutdown)."""
        with self._lock:
            subs = list(self._subs)
            self._subs.clear()
        for sub in subs:
            with contextlib.suppress(RuntimeError):  # its loop is closed
                sub.loop.call_soon_threadsafe(sub.queue.put_nowait, None)

    def _deliver(self, sub: Subscription, message: Message) -> None:
        if sub.dropped:
            return
        if sub.queue.qsize() >= QUEUE_LIMIT:
            sub.dropped = True
            self.unsubscribe(sub)
            sub.queue.put_nowait(None)
            return
        sub.queue.put_nowait(message)
