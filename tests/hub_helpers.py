"""Shared pieces of the hub tests: the local broker, and comparing the hub with a table."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from companion_api.hub.local_broker import LocalBroker, find_mosquitto


def broker() -> LocalBroker:
    """A local mosquitto (not started). .ci/run installs Debian's mosquitto, so missing it is a failure."""
    if find_mosquitto() is None:
        pytest.fail("mosquitto is not installed: the hub tests need Debian's mosquitto (.ci/run installs it)")
    return LocalBroker()


def disagreement(game: dict[str, Any], table_events: list[dict[str, Any]], entry: dict[str, Any] | None,
                 hub_events: list[dict[str, Any]] | None) -> str | None:
    """What differs between a table (its /api/game and /api/events) and the hub's view of it; ``None``: agree."""
    if entry is None or entry["state"] is None:
        return "the hub has no state for the table"
    state = entry["state"]
    if (state["id"], state["seq"], state["totals"]) != (game["id"], game["seq"], game["totals"]):
        hub = f"{state['id']}/{state['seq']} {state['totals']}"
        return f"state: hub {hub}, table {game['id']}/{game['seq']} {game['totals']}"
    if hub_events is None:
        return "the hub has no events for the table"
    seqs = [e["seq"] for e in hub_events]
    if seqs != list(range(1, game["seq"] + 1)):
        return f"hub events {seqs[:5]}…{seqs[-5:]} (n={len(seqs)}), table has 1..{game['seq']}"
    for mine, theirs in zip(hub_events, table_events, strict=False):
        if (mine["seq"], mine["type"], mine["totals"], mine.get("score")) != \
                (theirs["seq"], theirs["type"], theirs["totals"], theirs.get("score")):
            return f"event {mine['seq']} differs: {mine} vs {theirs}"
    return None


def wait_until(check: Callable[[], str | None], timeout: float, step: float = 0.1) -> None:
    """Poll ``check`` (``None`` = done) until it passes; fail with its last answer."""
    deadline = time.monotonic() + timeout
    why = check()
    while why is not None:
        if time.monotonic() > deadline:
            pytest.fail(f"after {timeout:g} s: {why}")
        time.sleep(step)
        why = check()
