"""What one ``companion serve`` process is told: which table source, game, players, database."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .hub.broker import HubLink


def default_db_path() -> Path:
    """``$XDG_DATA_HOME/table-companion/companion.sqlite3`` (``~/.local/share/...`` when unset)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "table-companion" / "companion.sqlite3"


@dataclass
class Settings:
    """Configuration of one table's server.

    ``source`` is ``sim``, ``video:PATH`` or ``camera:N``. ``speed`` scales the simulated table's
    pace (1 = a move about every ``sim_interval`` seconds). ``players`` are seat names.
    """

    source: str = "sim"
    game: str = "triolet"
    players: list[str] = field(default_factory=lambda: ["Player 1", "Player 2"])
    db: Path = field(default_factory=default_db_path)
    host: str = "127.0.0.1"
    port: int = 8000
    speed: float = 1.0
    sim_interval: float = 3.0
    seed: int = 1
    new_game: bool = False
    #: URL the phones use to reach this server (for the pairing QR code); default: the request's.
    public_url: str | None = None
    #: print which game is resumed or started on stderr (``companion serve``)
    announce: bool = False
    #: publish events and state to a club's MQTT broker (``--hub``; INTERFACES §6)
    hub: HubLink | None = None


def seat_names(players: int) -> list[str]:
    """Default names for ``players`` seats."""
    return [f"Player {i + 1}" for i in range(players)]
