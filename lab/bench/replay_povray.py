"""``companion bench replay --game trigon|blokus|blokus_duo --renderer povray`` — following whole
Blokus games in renderer B's ray-traced stills.

Per game (seed ``--seed + i``): one fixed table and the engine's random legal game played to its
end (or ``--max-events`` pieces), one still per move (``lab.render.povray.blokus_game``, rendered
once into ``--cache``), an arm painted over each new piece between stills; the rest tracker follows
it with the oracle (the renderer's labels) and the real one-picture reader. Prints the usual table
(moves exact, false and missed events, by observer) and one row per move that went wrong, with
why: the board not found, registration, a cell's colour, the engine refusing the reading, or the
tracker.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

from companion_api.cli.text_table import format_table

#: the games renderer B draws as game stills
GAMES = ("trigon", "blokus", "blokus_duo")
FAULT_HEADERS = ["observer", "game", "move", "what the tracker did", "why", "cause"]


def stills_cache(args: argparse.Namespace) -> Path:
    """The folder the stills are kept in (``--cache``, else the user's cache folder)."""
    if args.cache:
        return Path(args.cache)
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "table-companion" / "bench-replay-povray"


def run(args: argparse.Namespace, kinds: list[str]) -> int:
    """Render (or take from the cache) the games' stills, follow them, print the tables."""
    from lab.bench.replay import HEADERS, _progress, _row
    from lab.evaluate.stills import score_stills_game
    from lab.render.povray.blokus_game import STILL_QUALITY, STILL_SIZE, render_still, stills_game
    from vision.track.rest_tracker import RestOptions

    cache = stills_cache(args)
    games = []
    for seed in range(args.seed, args.seed + args.videos):
        sg = stills_game(seed, args.game, moves=args.max_events)
        t0 = time.perf_counter()
        stills = [render_still(sg, k, cache) for k in range(len(sg))]
        took = time.perf_counter() - t0
        if took > 5:
            sys.stderr.write(f"bench replay: {args.game} seed {seed}: {len(stills)} stills rendered in {took:.0f} s\n")
        games.append((sg, stills))
    options = RestOptions(stable_seconds=args.stable)
    rows: list[list[Any]] = []
    faults: list[list[Any]] = []
    causes: dict[str, Counter[str]] = {}
    pieces: dict[str, int] = {}
    notes: list[str] = []
    for kind in kinds:
        if kind in ("locator", "misreads"):
            notes.append(f"{kind}: not measured for {args.game} (its reader locates and reads in one step)")
            continue
        scores = []
        causes[kind] = Counter()
        pieces[kind] = 0
        for sg, stills in games:
            res = score_stills_game(sg, stills, kind, options, args.fps)
            scores.append(res.score)
            pieces[kind] += res.pieces_committed
            _progress(kind, Path(res.score.name), res.score, args.verbose)
            for f in res.faults:
                faults.append([kind, res.score.name, f.move, f.what, f.why, f.cause])
                causes[kind][f.cause] += 1
        rows.append(_row(kind, scores))
    moves = sum(len(sg.events) for sg, _ in games)
    w, h = STILL_SIZE
    print(format_table(HEADERS, rows, title=f"companion bench replay --game {args.game} --renderer povray: "
                                            f"{len(games)} games, {moves} moves, {w}x{h} {STILL_QUALITY} stills "
                                            f"@ {args.fps:g} fps, cv2 threads {args.threads}"))
    if faults:
        print(format_table(FAULT_HEADERS, faults, title="moves that went wrong"))
    for kind, counter in causes.items():
        print(f"{kind}: {pieces[kind]} of {moves} pieces committed in any order; "
              + ("causes " + ", ".join(f"{c} {n}" for c, n in counter.most_common()) if counter
                 else "no move went wrong"))
    for n in notes:
        print(n)
    return 0
