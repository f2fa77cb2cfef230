"""The lab's simulated tables as ``--source`` kinds of ``companion serve`` (a
``companion_api.plugins.SourcePlugin``): ``sim`` (renderer + vision tracker in real time, the
default), ``sim-lite`` (the engine-only simulated table, for slow machines) and ``render[:SEED]``
(renderer + tracker at full size, 10 fps: heavy, for experiments).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from companion_api.plugins import SourceSpec
from companion_api.table import SourceContext, TableSource
from companion_api.tracker_source import TrackerSource


class SimulatedSources:
    """``sim``, ``sim-lite`` and ``render[:SEED]``."""

    def __init__(self) -> None:
        self.kinds = {
            "sim": "the simulated table: renderer + vision tracker in real time (default)",
            "sim-lite": "the engine-only simulated table, for slow machines",
            "render": "renderer + tracker at full size, 10 fps (heavy); render:SEED picks the game",
        }

    def parse(self, kind: str, arg: str) -> SourceSpec:
        if kind in ("sim", "sim-lite"):
            if arg:
                raise ValueError(f"{kind} takes no argument")
            return SourceSpec(kind)
        if arg and not arg.isdigit():
            raise ValueError("the seed must be a number, like render:0")
        return SourceSpec(kind, arg)

    def choose(self, spec: SourceSpec, speed: float, game: str) -> SourceSpec:
        """``sim`` becomes ``sim-lite`` (one line on stderr says why) when the vision tracker cannot
        start for ``game`` or ``speed`` is beyond what the renderer keeps up with."""
        if spec.kind != "sim":
            return spec
        from .live import MAX_LIVE_SPEED, ReaderUnavailable, check_reader

        if speed > MAX_LIVE_SPEED:
            reason = f"--speed {speed:g} is faster than the renderer keeps up with (at most {MAX_LIVE_SPEED:g})"
        else:
            try:
                check_reader(game)
                return spec
            except ReaderUnavailable as exc:
                reason = f"the vision tracker cannot start ({exc})"
        print(f"sim: {reason}; using sim-lite (the engine-only simulated table)", file=sys.stderr, flush=True)
        return SourceSpec("sim-lite")

    def build(self, spec: SourceSpec, speed: float, interval: float) -> Callable[[Any], Any]:
        if spec.kind == "sim-lite":
            from .table import SimulatedTable

            def make_sim(ctx: SourceContext) -> TableSource:
                return SimulatedTable(ctx, interval=interval / max(speed, 1e-6))

            return make_sim
        if spec.kind == "sim":
            from .live import LiveSimSource

            def make_live(ctx: SourceContext) -> TableSource:
                return LiveSimSource(ctx, speed=speed)

            return make_live

        def make_render(ctx: SourceContext) -> TableSource:
            from .frames import SimSource

            seed = int(spec.arg) if spec.arg else ctx.seed * 1_000_003 + ctx.game_id
            frames = SimSource(game=ctx.header.game, seed=seed, fps=10.0, options={"players": len(ctx.header.players)})
            return TrackerSource("render", ctx, speed=speed, pace=True, frames=frames)

        return make_render


#: the entry point (``table_companion.sources``)
PLUGIN = SimulatedSources()
