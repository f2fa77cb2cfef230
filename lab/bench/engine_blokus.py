"""``companion bench engine --game blokus`` (and ``blokus_duo``) — legal-move generation and perft
speed on the independent engine's reference positions (``tests/fixtures/blokus``).

Measures, per variant: the time to list every legal placement of the colour to move before each
ply of the reference games (median, p95, max), events judged per second when replaying the games
through a ``Session``, and perft depth 2 — from the empty board and at the reference positions —
with every count checked against the reference.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table
from engine.blokus import VARIANTS, BlokusPass, BlokusPlace
from engine.blokus.board import square_board
from engine.blokus.pieces import placement_table
from engine.core import Header, Session
from engine.polyform import Position
from engine.polyform.notation import canonical_cells
from lab.bench.polyform_common import add_replay, first, ms_stats, perft_table, read_fixture, setup_seconds, timed_perft

#: Depth of the deeper perft from the empty board (its first two plies are played, not counted).
DEEP = 3


def _read(name: str) -> list[dict[str, Any]]:
    return read_fixture("blokus", name)


def _header(variant: str) -> Header:
    v = VARIANTS[variant]
    return Header(game=v.game, players=tuple(f"P{i}" for i in range(v.players)), options={"variant": variant})


def _event(variant: str, ply: dict[str, Any]) -> BlokusPlace | BlokusPass:
    v = VARIANTS[variant]
    colour = v.colour_names[ply["colour"] - 1]
    if "move" in ply:
        return BlokusPlace(player=None, colour=colour, cells=canonical_cells(ply["move"].split(",")))
    return BlokusPass(player=None, colour=colour)


def _position(variant: str, moves: list[dict[str, Any]]) -> Position:
    v = VARIANTS[variant]
    board = square_board(v.side)
    table = placement_table(v.side)
    pos = Position(table, v.colours, tuple(1 << board.index_of_name[s] for s in v.starts))
    for mv in moves:
        mask = 0
        for name in mv["move"].split(","):
            mask |= 1 << board.index_of_name[name]
        pos.play(mv["colour"] - 1, table.index_of_mask[mask])
    return pos


def run_game(args: argparse.Namespace, game: str) -> int:
    variants = [v for v in VARIANTS.values() if v.game == game]
    games = [g for g in _read("games.jsonl") if VARIANTS[g["variant"]].game == game]
    perfts = [p for p in _read("perft.jsonl") if p["depth"] == 2 and VARIANTS[p["variant"]].game == game]
    games, perfts = first(games, args.games), first(perfts, args.games)
    setup_s = setup_seconds(lambda: [placement_table(side) for side in sorted({v.side for v in variants})])

    gen: dict[str, list[float]] = {}
    moves: dict[str, list[int]] = {}
    replay: dict[str, tuple[int, float]] = {}
    for g in games:
        v = g["variant"]
        events = [_event(v, ply) for ply in g["plies"]]
        session = Session(_header(v))
        for ply, ev in zip(g["plies"], events, strict=True):
            t = time.perf_counter()
            found = session.state.legal_placements()
            count = sum(1 for _ in found)
            gen.setdefault(v, []).append(time.perf_counter() - t)
            if "move" in ply:
                moves.setdefault(v, []).append(count)
            session.submit(ev)
        add_replay(replay, v, _header(v), events)
    rows: list[list[Any]] = []
    for v, samples in gen.items():
        med, p95, worst = ms_stats(samples)
        n, s = replay[v]
        rows.append([v, len(samples), round(statistics.mean(moves[v])), med, p95, worst, n / s if s else 0.0])
    print(format_table(
        ["variant", "positions", "mean moves", "list ms median", "list ms p95", "list ms max", "events/s"],
        rows, title=f"{game}: every legal placement as sorted place events, before each ply of the reference "
        f"games (placement tables built in {setup_s:.2f} s)"))
    print()

    nodes: dict[str, tuple[int, float, float, int]] = {}
    for v in variants:
        pos = _position(v.id, [])
        n, s, u = timed_perft(pos, 0, 2)
        expected = 414 ** 2 if v.side == 14 else 58 ** 2
        if n != expected:
            raise CliError(f"perft mismatch on the empty {v.id} board: {n} != {expected}")
        nodes[f"{v.id}, empty board"] = (n, s, u, 1)
    for line in perfts:
        pos = _position(line["variant"], line["moves"])
        n, s, u = timed_perft(pos, line["to_move"] - 1, 2)
        if n != line["nodes"]:
            raise CliError(f"perft mismatch at {line['variant']} seed {line['seed']} ply {line['ply']}: "
                           f"{n} != {line['nodes']}")
        key = f"{line['variant']}, game positions"
        a, b, c, k = nodes.get(key, (0, 0.0, 0.0, 0))
        nodes[key] = (a + n, b + s, c + u, k + 1)
    print(perft_table(f"{game}: perft depth 2 (every count checked against the reference; wall time includes "
                      "waiting for a shared CPU, CPU time does not)", nodes))
    print()
    deep: dict[str, tuple[int, float, float, int]] = {}
    for v in variants:
        n, s, u = timed_perft(_position(v.id, []), 0, DEEP)
        deep[f"{v.id}, empty board"] = (n, s, u, 1)
    print(perft_table(f"{game}: perft depth {DEEP} from the empty board (no reference count; the first "
                      f"plies played on copies, the last two counted)", deep).replace("perft(2)", f"perft({DEEP})"))
    return 0


def run(args: argparse.Namespace) -> int:
    return run_game(args, "blokus")
