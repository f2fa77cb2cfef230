"""Extensions found through entry points (``pyproject.toml``): extra commands and table sources.

The lab (``lab/``: the renderer, the simulated tables, training, evaluation, benchmarks) extends the
companion this way and is never imported by it: ``companion render`` and ``companion bench`` are
commands of group ``table_companion.commands`` (an entry point is a ``register(subparsers)``
function), and ``--source sim | sim-lite | render`` are sources of group ``table_companion.sources``
(an entry point is a :class:`SourcePlugin`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from typing import Any, Protocol

COMMANDS_GROUP = "table_companion.commands"
SOURCES_GROUP = "table_companion.sources"


@dataclass(frozen=True)
class SourceSpec:
    """A parsed ``--source``: its ``kind`` (``camera``, ``video``, or a plugin's) and argument."""

    kind: str
    arg: str = ""

    def __str__(self) -> str:
        return self.kind if not self.arg else f"{self.kind}:{self.arg}"


class SourcePlugin(Protocol):
    """A table source the companion does not hold itself (e.g. the lab's simulated tables)."""

    #: the ``--source`` kinds it serves, each with its one-line help (``"sim": "the simulated table…"``)
    kinds: dict[str, str]

    def parse(self, kind: str, arg: str) -> SourceSpec:
        """The spec for ``--source kind[:arg]``; ``ValueError`` names what is wrong."""
        ...

    def choose(self, spec: SourceSpec, speed: float, game: str) -> SourceSpec:
        """The source that will really run (a plugin may fall back to a lighter one, saying why on stderr)."""
        ...

    def build(self, spec: SourceSpec, speed: float, interval: float) -> Callable[[Any], Any]:
        """A factory making the ``TableSource`` of each game (``companion_api.table.SourceFactory``)."""
        ...


@cache
def command_registrars() -> tuple[Callable[[Any], None], ...]:
    """Every plugged-in command's ``register(subparsers)``, by entry point name."""
    return tuple(ep.load() for ep in sorted(entry_points(group=COMMANDS_GROUP), key=lambda ep: ep.name))


@cache
def source_plugins() -> dict[str, SourcePlugin]:
    """The plugged-in sources by ``--source`` kind."""
    out: dict[str, SourcePlugin] = {}
    for ep in sorted(entry_points(group=SOURCES_GROUP), key=lambda ep: ep.name):
        plugin: SourcePlugin = ep.load()
        for kind in plugin.kinds:
            out.setdefault(kind, plugin)
    return out
