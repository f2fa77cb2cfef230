"""Renderer-B game stills of the Blokus games: one fixed table (camera, light, board, clutter) and
the engine's random legal game, one still per move (the position after ``k`` moves, ``k = 0 …
end``), for following whole games with the tracker (``companion bench replay --renderer povray``;
``docs/RENDERER_B.md``, game stills).

The table is ``random_blokus_scene(seed, game, size)``'s; the game replaces its position. Each
piece's small shift and turn off its cells are drawn from the seed and the piece's place in the
game alone, so a laid piece keeps its pose in every later still. The stills are ray-traced once
and kept in a cache folder under a digest of everything that shapes the picture (the scene's
description, the sensor's noise seed, the quality). A hand over the board between moves is not
ray-traced: :func:`arm_over` paints a skin-toned arm over the still after the move, reaching from
the picture's bottom edge to the new piece (the same arm as the project renderer's game frames).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from engine.core.header import Header
from engine.core.session import Session
from engine.polyform.events import PolyformPlace
from lab.render.blokus import arm_towards
from lab.render.frame import RenderedFrame
from lab.render.povray.blokus import (
    BLOKUS_RENDERER_VERSION,
    GAMES,
    PIECE_LIFT,
    PIECE_THICK,
    BlokusPiece,
    BlokusPovScene,
    blokus_labels,
    blokus_scene_text,
    random_blokus_scene,
)
from lab.render.povray.render import postprocess, run_povray, through_cache

U8 = NDArray[np.uint8]
#: picture size and quality of the game stills (cheaper than the single pictures' 1280 × 960, anti-aliased)
STILL_SIZE = (960, 720)
STILL_QUALITY = "draft"
#: players of each game's stills (Trigon and classic: four colours, one per player; Duo: two)
PLAYERS = {"trigon": 4, "blokus": 4, "blokus_duo": 2}


def game_header(game: str) -> Header:
    """The header of a stills game (Trigon on its four-player board, B-V1)."""
    if game not in GAMES:
        raise ValueError(f"unknown Blokus game {game!r}; choose {', '.join(GAMES)}")
    players = tuple(f"P{i + 1}" for i in range(PLAYERS[game]))
    if game == "trigon":
        return Header(game="trigon", players=players, options={"variant": "trigon"})
    return Header(game=game, players=players)


def random_game(header: Header, seed: int, moves: int | None = None) -> list[PolyformPlace]:
    """The engine's random legal game: up to ``moves`` placements (``None``: until no colour can
    move), each chosen by ``seed`` among the mover's legal placements (a colour that cannot move
    is skipped by the engine, K-L4 / B-L4)."""
    session = Session(header)
    pick = random.Random(seed)
    out: list[PolyformPlace] = []
    while moves is None or len(out) < moves:
        options = [o for o in session.state.legal_placements() if isinstance(o, PolyformPlace)]
        if not options:
            break
        event = pick.choice(options)
        if not session.submit(event).verdict.legal:
            raise AssertionError(f"the engine refused its own placement {event.to_json()}")
        out.append(event)
    return out


def piece_pose(seed: int, index: int, cell_mm: float) -> tuple[tuple[float, float], float]:
    """The shift (mm) and turn (degrees) of the game's ``index``-th piece off its cells: from the
    seed and the index alone (the same in every still that shows the piece)."""
    rng = np.random.default_rng([seed, 0x9A3E, index])
    shift = (float(rng.normal(0, 0.03 * cell_mm)), float(rng.normal(0, 0.03 * cell_mm)))
    return shift, float(rng.normal(0, 1.2))


@dataclass(frozen=True)
class StillsGame:
    """A game to render as stills: the table, the header and the placements in order; ``full``
    is the table with every piece of the game laid."""

    seed: int
    game: str
    header: Header
    events: tuple[PolyformPlace, ...]
    full: BlokusPovScene

    def scene(self, k: int) -> BlokusPovScene:
        """The table after the first ``k`` moves."""
        return dataclasses.replace(self.full, pieces=self.full.pieces[:k])

    def __len__(self) -> int:
        """Stills in the game: the empty board and one per move."""
        return len(self.events) + 1


def stills_game(seed: int, game: str, size: tuple[int, int] = STILL_SIZE, moves: int | None = None,
                soft_shadows: bool = False) -> StillsGame:
    """The stills game of ``seed``: ``random_blokus_scene``'s table with the engine's random game.
    Without ``soft_shadows`` the lights are points (hard shadows: a third of the render time)."""
    header = game_header(game)
    table = random_blokus_scene(seed, game, size)
    events = random_game(header, seed, moves)
    pieces = []
    for i, ev in enumerate(events):
        shift, turn = piece_pose(seed, i, table.cell_mm)
        pieces.append(BlokusPiece(str(ev.colour), tuple(ev.cells), shift, turn))
    lights = table.lights if soft_shadows else tuple((pos, col, 0.0) for pos, col, _size in table.lights)
    full = dataclasses.replace(table, variant=header.options.get("variant", game), pieces=tuple(pieces),
                               lights=lights)
    return StillsGame(seed, game, header, tuple(events), full)


def still_digest(sc: BlokusPovScene, noise_seed: list[int], quality: str) -> str:
    """A digest of everything that shapes a still: the scene, the sensor noise's seed, the quality."""
    text = json.dumps({"v": BLOKUS_RENDERER_VERSION, "scene": dataclasses.asdict(sc), "noise": noise_seed,
                       "q": quality}, sort_keys=True, default=str)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


def render_still(sg: StillsGame, k: int, cache: str | Path | None = None,
                 quality: str = STILL_QUALITY) -> RenderedFrame:
    """The still after ``k`` moves, labelled (``blokus_labels``), from ``cache`` when it holds it."""
    sc = sg.scene(k)
    noise = [sg.seed, k, 0x5711]
    stem = f"{sg.game}_still_{sg.seed}_{k:03d}_{still_digest(sc, noise, quality)}"

    def render() -> RenderedFrame:
        raw = run_povray(blokus_scene_text(sc), (sc.camera.width, sc.camera.height), quality)
        image = postprocess(raw, sc.exposure, sc.extras, np.random.default_rng(noise))
        return RenderedFrame(image=image, labels=blokus_labels(sc, sg.seed))

    return through_cache(cache, stem, render)


def arm_over(image: U8, sc: BlokusPovScene, piece: BlokusPiece, reach: float, rng: np.random.Generator) -> U8:
    """``image`` with a skin-toned arm from the picture's bottom edge reaching ``reach`` of the way
    to ``piece`` (its centre projected by the scene's camera)."""
    centre = np.mean([sc.cell_polygon(c).mean(axis=0) for c in piece.cells], axis=0)
    target = sc.camera.project(np.array([[centre[0], centre[1], -PIECE_LIFT - PIECE_THICK]]))[0]
    return arm_towards(image, np.asarray(target, np.float64), reach, rng)


def still_frames(sg: StillsGame, stills: list[RenderedFrame], hold: int = 6, arm: bool = True
                 ) -> Iterator[tuple[U8, dict[str, Any], int, bool]]:
    """The game as a frame sequence: the empty board for ``hold`` frames, then per move (with
    ``arm``) two frames of an arm reaching over the new piece and ``hold`` frames of the still.
    Yields (picture, labels, the still's number ``k``, whether it is the still's first frame at rest)."""
    rng = np.random.default_rng([sg.seed, 0xA53])
    for k, still in enumerate(stills):
        if k > 0 and arm:
            for reach in (0.6, 1.0):
                yield arm_over(still.image, sg.scene(k), sg.full.pieces[k - 1], reach, rng), still.labels, k, False
        for j in range(hold):
            yield still.image, still.labels, k, j == 0


def main(argv: list[str] | None = None) -> int:
    """Fill a cache with a game's stills: ``python3 -m lab.render.povray.blokus_game --game blokus_duo
    --seed 1 --cache DIR`` (skips the cached ones; prints each still's render time)."""
    import argparse
    import time

    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("--game", required=True, choices=GAMES)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--moves", type=int, default=None, help="placements at most (default: the whole game)")
    ap.add_argument("--cache", required=True)
    args = ap.parse_args(argv)
    sg = stills_game(args.seed, args.game, moves=args.moves)
    print(f"{args.game} seed {args.seed}: {len(sg.events)} moves, {len(sg)} stills", flush=True)
    for k in range(len(sg)):
        t0 = time.perf_counter()
        render_still(sg, k, args.cache)
        print(f"{args.game} {args.seed} still {k} {time.perf_counter() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
