"""``companion bench engine --game trigon`` — legal-move generation and perft speed on the
Pentobi reference positions (``tests/fixtures/trigon``).

Measures, per variant: the time to list every legal placement of the colour to move before each
ply of the reference games and at the perft positions (median, p95), events judged per second
when replaying the games through a ``Session``, and perft depth-2 nodes per second.
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

from companion_api.cli.common import CliError
from companion_api.cli.text_table import format_table
from engine.core import Header
from engine.trigon import TrigonPass, TrigonPlace, TrigonState
from engine.trigon.notation import canonical_cells
from engine.trigon.variants import COLOURS, VARIANTS
from lab.bench.polyform_common import add_replay, first, ms_stats, perft_table, read_fixture, setup_seconds, timed_perft

PLAYERS = {"trigon": 4, "trigon_2": 2, "trigon_3": 3}
#: Timings of one perft position are the median of this many runs.
REPEATS = 5


def _read(name: str) -> list[dict[str, Any]]:
    return read_fixture("trigon", name)


def _header(variant: str) -> Header:
    options: dict[str, Any] = {"variant": variant}
    if variant == "trigon_2":
        options["symmetric_start"] = False  # Pentobi's rules (see the fixture README)
    return Header(game="trigon", players=tuple(f"P{i}" for i in range(PLAYERS[variant])), options=options)


def _event(variant: str, ply: dict[str, Any]) -> TrigonPlace | TrigonPass:
    colour = COLOURS[ply["colour"] - 1]
    seat = VARIANTS[variant].owner[ply["colour"] - 1]
    if "move" in ply:
        return TrigonPlace(player=seat, colour=colour, cells=canonical_cells(ply["move"].split(",")))
    return TrigonPass(player=seat, colour=colour)


def run(args: argparse.Namespace) -> int:
    games = _read("games.jsonl")
    perfts = [p for p in _read("perft.jsonl") if p["depth"] == 2]
    games, perfts = first(games, args.games), first(perfts, args.games)
    setup_s = setup_seconds(lambda: [TrigonState.new(_header(v)) for v in ("trigon", "trigon_3")])

    gen: dict[str, list[float]] = {}
    moves: dict[str, list[int]] = {}
    replay: dict[str, tuple[int, float]] = {}
    for g in games:
        v = g["variant"]
        state = TrigonState.new(_header(v))
        for ply in g["plies"]:
            c = ply["colour"] - 1
            t = time.perf_counter()
            found = state.pos.legal_masks(c)
            gen.setdefault(v, []).append(time.perf_counter() - t)
            moves.setdefault(v, []).append(len(found))
            state.apply(_event(v, ply))
        events = [_event(v, ply) for ply in g["plies"]]
        add_replay(replay, v, _header(v), events)

    rows: list[list[Any]] = []
    for v, samples in gen.items():
        med, p95, worst = ms_stats(samples)
        n, s = replay[v]
        rows.append([v, "game positions", len(samples), round(statistics.mean(moves[v])), med, p95, worst,
                     n / s if s else 0.0])

    perft_gen: dict[str, list[float]] = {}
    perft_moves: dict[str, list[int]] = {}
    perft_events: dict[str, list[float]] = {}
    perft_nodes: dict[str, tuple[int, float, float, int]] = {}
    for v in ("trigon", "trigon_3"):
        state = TrigonState.new(_header(v))
        nodes, elapsed, cpu = timed_perft(state.pos, 0, 2)
        perft_nodes[f"{v}, empty board"] = (nodes, elapsed, cpu, 1)
    for line in perfts:
        v = line["variant"]
        state = TrigonState.new(_header(v))
        for mv in line["moves"]:
            state.apply(_event(v, mv))
        c = line["to_move"] - 1
        repeats = []
        for _ in range(REPEATS):
            t = time.perf_counter()
            found = state.pos.legal_masks(c)
            repeats.append(time.perf_counter() - t)
        perft_gen.setdefault(v, []).append(statistics.median(repeats))
        perft_moves.setdefault(v, []).append(len(found))
        repeats = []
        for _ in range(REPEATS):
            t = time.perf_counter()
            list(state.legal_placements())
            repeats.append(time.perf_counter() - t)
        perft_events.setdefault(v, []).append(statistics.median(repeats))
        nodes, elapsed, cpu = timed_perft(state.pos, c, 2)
        if nodes != line["nodes"]:
            raise CliError(f"perft mismatch at {v} seed {line['seed']} ply {line['ply']}: {nodes} != {line['nodes']}")
        n, s, u, k = perft_nodes.get(v, (0, 0.0, 0.0, 0))
        perft_nodes[v] = (n + nodes, s + elapsed, u + cpu, k + 1)
    for v, samples in perft_gen.items():
        med, p95, worst = ms_stats(samples)
        rows.append([v, f"perft positions (median of {REPEATS})", len(samples),
                     round(statistics.mean(perft_moves[v])), med, p95, worst, ""])
    for v, samples in perft_events.items():
        med, p95, worst = ms_stats(samples)
        rows.append([v, "perft positions, as sorted place events", len(samples),
                     round(statistics.mean(perft_moves[v])), med, p95, worst, ""])

    print(format_table(
        ["variant", "positions", "count", "mean moves", "gen ms median", "gen ms p95", "gen ms max", "events/s"],
        rows, title=f"Trigon legal-move generation (placement tables built in {setup_s:.2f} s)"))
    print()
    prow = {v if "," in v else f"{v}, game positions": row for v, row in perft_nodes.items()}
    total = [sum(x[i] for x in perft_nodes.values()) for i in range(4)]
    prow["all"] = (int(total[0]), total[1], total[2], int(total[3]))
    print(perft_table("Trigon perft depth 2 (every count at game positions checked against the "
                      "reference; wall time includes waiting for a shared CPU, CPU time does not)", prow))
    return 0
