"""Game-aware reading: what the rules say a board can hold.

- T-B3/T-P7: no value appears more often than the tile set holds (wilds at most 2). Excess
  readings of a value are misreads: the least likely ones move to their next candidate.
- T-P4: every maximal run of occupied squares has length ≤ 3, a pair totals ≤ 15, a trio exactly
  15 (a wild counts as whatever value it was declared). A run that breaks this is re-read from the
  squares' top candidates, and "empty" for a square not surely holding a tile (a phantom under a
  hand): the most probable legal assignment. A pair or trio may also take any value at one of its
  squares, when that is more probable (a tile half under a finger whose true value is not among
  its top three, in a trio whose other two fix it). If none is close in
  probability, the readings stay and their confidence drops. A re-reading must keep legal the
  runs crossing the re-read one (a square re-read to mend its row may not break its column).
- T-P3: every placement after the first touches the tiles already down, so the tiles form one
  orthogonally connected group. A group cut off from the others (through squares the picture
  shows) is read empty when that is more probable than the likeliest squares between being tiles
  read empty, and not too unlikely (``ISLAND_MAX_COST``): a phantom tile on a pattern or the
  board's edge. No tile is ever added this way (a tile under an unseen hand, or a player's
  illegal placement, would be invented over), but one: the first placement covers H8, so an H8
  the picture does not show (a hand, glare), read empty while tiles lie elsewhere, is a tile of
  unknown value that its runs settle.
- A covered square (a hand over its grid lines: ``decide(…, covered)``) may show only part of its
  marks, so its reading is mixed with "any value" (``COVERED_DOUBT``; less, ``SURE_COVERED_DOUBT``,
  when the reading is sure all the same) and every value is an option when its run is re-read: a
  run broken by a misread under a finger is mended there, not by changing a clear square beside it.

Works on class probabilities (16 values, wild, empty) per square; returns the chosen class, a
confidence and the top candidates of every square.
"""

from __future__ import annotations

import heapq
import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from engine.triolet.board import CENTRE, NEIGHBOURS
from engine.triolet.runs import EMPTY as ENGINE_EMPTY
from engine.triolet.runs import run_along
from engine.triolet.tiles import VALUE_COUNTS, WILDS
from vision.read.triolet.classifier import EMPTY, WILD, tile_set_shares

F32 = NDArray[np.float32]

TOP_K = 3
#: A legal re-reading is adopted when at least this likely relative to the raw reading.
ADOPT_RATIO = 0.02
#: Confidence factor for squares in a run no candidate combination makes legal.
ILLEGAL_RUN_FACTOR = 0.5
#: In a run re-read for T-P4, a square whose "empty" probability is at least this may be read empty.
EMPTY_OPTION_ABOVE = 0.05
#: Longest run re-read from candidates (longer ones only lose confidence).
LONGEST_REREAD = 5
#: Share of "any value" mixed into a covered square's tile probabilities (0: read like the others).
COVERED_DOUBT = 0.5
#: ... and into one whose reading is this sure of one tile class all the same (its marks are in
#: view: on 2,000 dev frames, 179 such squares in view, none misread) ...
SURE_UNDER_HAND = 0.99
#: ... which is doubted this much only, so that its run is mended at the unsure squares beside it.
SURE_COVERED_DOUBT = 0.25
#: Runs up to this long are also re-read with one square at any value (beyond its ``TOP_K``), and the
#: more probable of the two re-readings wins (re-reading so only where no combination of top
#: candidates was legal and close, a 3 whose top candidates were 6, 4, 0 made 4 + 2 + 9 of a trio
#: 3 + 7 + 5 read 7 at 0.91, changing the sure 7).
WIDEST_REREAD = 3
#: Most candidate combinations tried for one run; beyond, covered squares offer only ``TOP_K``.
MAX_COMBOS = 3000
#: Largest cost (−log probability that all its tiles are phantoms) of reading a cut-off group of
#: tiles empty (T-P3): about 1 in 160,000.
ISLAND_MAX_COST = 12.0
#: Highest confidence of a hidden H8 read as a tile only because tiles are down (T-P3).
HIDDEN_CENTRE_CONFIDENCE = 0.5


@dataclass
class SquareChoice:
    """The decision for one square: ``cls`` (0–15, 16 wild, 17 empty), its confidence, the
    probability the square holds a tile, top candidates ``[(cls, p), …]`` among tile classes, and
    which rules changed or doubted the reading."""

    cls: int
    confidence: float
    p_occupied: float
    candidates: list[tuple[int, float]]
    rules: list[str]
    #: a hand may hide the square's marks: its run is re-read from any value
    covered: bool = False
    #: the tile classes' probabilities (16 values, wild), summing to 1 (``None``: the candidates only)
    tile_probs: F32 | None = field(default=None, repr=False)

    @property
    def values(self) -> list[tuple[int, float]]:
        """Every tile class with its probability, most probable first."""
        if self.tile_probs is None:
            return list(self.candidates)
        q = self.tile_probs
        return [(int(k), float(q[k])) for k in np.argsort(-q)]


def _tile_probs(p: F32) -> F32:
    """Rows of class probabilities (n, 18) → their tile classes' probabilities (n, 17) renormalised."""
    q = np.asarray(p[:, :EMPTY], np.float64)
    return np.asarray(q / np.maximum(q.sum(axis=1, keepdims=True), 1e-9), np.float32)


def _legal_run(values: list[int]) -> bool:
    """T-P4 for one run (``-1`` = a wild, which may take any value)."""
    n = len(values)
    if n > 3:
        return False
    if n < 2:
        return True
    fixed = sum(v for v in values if v >= 0)
    wilds = sum(1 for v in values if v < 0)
    if n == 2:
        return fixed <= 15  # a wild can be declared 0
    return fixed <= 15 and (wilds > 0 or fixed == 15)


def _legal_line(classes: list[int]) -> bool:
    """T-P4 for a line of squares some of which may be read empty: every stretch of tiles is legal."""
    stretch: list[int] = []
    for k in [*classes, EMPTY]:
        if k != EMPTY:
            stretch.append(-1 if k == WILD else k)
        elif stretch:
            if not _legal_run(stretch):
                return False
            stretch = []
    return True


def _options(choice: SquareChoice, tiles: list[tuple[int, float]] | None = None) -> list[tuple[int, float]]:
    """What a square may be re-read as, with probabilities: ``tiles`` (by default its top tile
    candidates, or any value for a covered square), and empty when that is not unlikely
    (``EMPTY_OPTION_ABOVE``)."""
    if tiles is None:
        tiles = choice.values if choice.covered else choice.candidates
    opts = [(k, choice.p_occupied * pk) for k, pk in tiles]
    if 1.0 - choice.p_occupied >= EMPTY_OPTION_ABOVE:
        opts.append((EMPTY, 1.0 - choice.p_occupied))
    return opts


def decide(probs: F32, covered: NDArray[np.bool_] | None = None,
           unknown: NDArray[np.bool_] | None = None) -> list[SquareChoice]:
    """Consistent choices for the 225 squares (row by row) from their class probabilities;
    ``covered`` (225 flags, optional) marks squares whose marks a hand may hide, ``unknown`` squares
    the picture does not show (under a hand, outside the picture): a tile may hide there, so they
    may join groups of tiles (T-P3). ``covered`` squares count as unknown too."""
    n = probs.shape[0]
    hidden = np.zeros(n, bool) if covered is None else np.asarray(covered, bool).reshape(n)
    covered_here = hidden & (COVERED_DOUBT > 0)
    q_all = _tile_probs(probs)
    doubt = np.where(q_all.max(axis=1) >= SURE_UNDER_HAND, SURE_COVERED_DOUBT, COVERED_DOUBT)[covered_here, None]
    q_all[covered_here] = np.asarray((1.0 - doubt) * q_all[covered_here] + doubt / EMPTY, np.float32)
    top = np.argsort(-q_all, axis=1)[:, :TOP_K]
    p_occupied = (1.0 - probs[:, EMPTY]).tolist()
    choices: list[SquareChoice] = []
    for i in range(n):
        q, p_occ = q_all[i], p_occupied[i]
        cands = [(int(k), float(q[k])) for k in top[i]]
        if p_occ >= 0.5:
            choices.append(SquareChoice(cands[0][0], p_occ * cands[0][1], p_occ, cands, [], bool(covered_here[i]), q))
        else:
            choices.append(SquareChoice(EMPTY, 1.0 - p_occ, p_occ, cands, [], bool(covered_here[i]), q))
    free = hidden if unknown is None else hidden | np.asarray(unknown, bool).reshape(n)
    _centre_tile(choices, free)
    _drop_cut_off_groups(choices, free)
    _enforce_counts(choices)
    for _ in range(2):
        _enforce_runs(choices)
    _enforce_counts(choices)
    return choices


def _centre_tile(choices: list[SquareChoice], free: NDArray[np.bool_]) -> None:
    """T-P3: the first placement covers H8, so once a tile is down H8 holds one. An H8 read empty
    that the picture does not show (``free``: under a hand, washed out, outside) while tiles lie
    elsewhere becomes a covered tile of unknown value (the tile set's shares mixed into its
    reading), left to its runs to settle. An H8 in plain view read empty stays empty: a player's
    illegal opening is reported, not mended."""
    c = choices[CENTRE]
    if c.cls != EMPTY or not free[CENTRE] or not any(o.cls != EMPTY for o in choices):
        return
    prior = tile_set_shares()
    q = prior if c.tile_probs is None else (1.0 - COVERED_DOUBT) * c.tile_probs + COVERED_DOUBT * prior
    top = np.argsort(-q)[:TOP_K]
    c.tile_probs = q
    c.candidates = [(int(k), float(q[k])) for k in top]
    c.cls, c.p_occupied, c.covered = c.candidates[0][0], 1.0, True
    c.confidence = min(c.candidates[0][1], HIDDEN_CENTRE_CONFIDENCE)
    c.rules.append("T-P3")


def _groups(passable: NDArray[np.bool_]) -> list[set[int]]:
    """Orthogonally connected groups of passable squares."""
    seen: set[int] = set()
    out: list[set[int]] = []
    for start in np.flatnonzero(passable):
        if int(start) in seen:
            continue
        group, todo = {int(start)}, [int(start)]
        while todo:
            for j in NEIGHBOURS[todo.pop()]:
                if passable[j] and j not in group:
                    group.add(j)
                    todo.append(j)
        seen |= group
        out.append(group)
    return out


def _bridge_cost(main: set[int], island: set[int], cost: list[float]) -> float:
    """−log probability of the likeliest squares read empty joining ``island`` to ``main``
    (Dijkstra; ``cost``: −log p(tile) per square, 0 on passable ones), or ``inf`` beyond
    ``ISLAND_MAX_COST``."""
    best = {i: 0.0 for i in main}
    heap = [(0.0, i) for i in main]
    heapq.heapify(heap)
    while heap:
        d, i = heapq.heappop(heap)
        if d > best.get(i, math.inf):
            continue
        if i in island:
            return d
        for j in NEIGHBOURS[i]:
            nd = d + cost[j]
            if nd < best.get(j, math.inf) and nd <= ISLAND_MAX_COST:
                best[j] = nd
                heapq.heappush(heap, (nd, j))
    return math.inf


def _drop_cut_off_groups(choices: list[SquareChoice], free: NDArray[np.bool_]) -> None:
    """T-P3: read empty the groups of tiles cut off from the main one (the group on ``H8``, else the
    largest) that are more probably phantoms than joined by tiles read empty."""
    for _ in range(16):
        tiles = np.array([c.cls != EMPTY for c in choices])
        if tiles.sum() < 2:
            return
        passable = tiles | free
        groups = [g for g in _groups(passable) if any(tiles[i] for i in g)]
        if len(groups) < 2:
            return
        main = next((g for g in groups if CENTRE in g and tiles[CENTRE]),
                    max(groups, key=lambda g: sum(int(tiles[i]) for i in g)))
        cost = [0.0 if passable[i] else -math.log(max(c.p_occupied, 1e-12)) for i, c in enumerate(choices)]
        phantoms = []
        for g in groups:
            if g is main:
                continue
            drop = sum(-math.log(max(1.0 - choices[i].p_occupied, 1e-12)) for i in g if tiles[i])
            if drop <= ISLAND_MAX_COST and drop < _bridge_cost(main, g, cost):
                phantoms.append((drop, g))
        if not phantoms:
            return
        _, g = min(phantoms, key=lambda f: f[0])
        for i in g:
            if tiles[i]:
                ch = choices[i]
                ch.cls, ch.confidence = EMPTY, 1.0 - ch.p_occupied
                ch.rules.append("T-P3")


def _limit(cls: int) -> int:
    return WILDS if cls == WILD else VALUE_COUNTS[cls]


def _enforce_counts(choices: list[SquareChoice]) -> None:
    """T-B3/T-P7: demote the least likely excess readings of a value to their next candidate."""
    for _ in range(8):
        changed = False
        for cls in range(EMPTY):
            holders = [c for c in choices if c.cls == cls]
            excess = len(holders) - _limit(cls)
            if excess <= 0:
                continue
            holders.sort(key=lambda c: dict(c.candidates).get(cls, 0.0))
            for c in holders[:excess]:
                alt = [(k, pk) for k, pk in c.candidates if k != cls and
                       sum(1 for o in choices if o.cls == k) < _limit(k)]
                if alt:
                    c.cls = alt[0][0]
                    c.confidence = c.p_occupied * alt[0][1]
                else:
                    c.confidence *= ILLEGAL_RUN_FACTOR
                c.rules.append("T-P7")
                changed = True
        if not changed:
            return


#: The run crossing a square (its classes, the square's place in it) when that run is legal now.
Crossing = tuple[list[int], int] | None


def _enforce_runs(choices: list[SquareChoice]) -> None:
    """T-P4: re-read illegal runs from the top candidates (or empty), or lower their confidence.
    A re-reading that keeps the crossing runs legal is preferred; when there is none (a crossing
    run legal as read may itself be misread), the run is re-read on its own."""
    values = [ENGINE_EMPTY if c.cls == EMPTY else (c.cls if c.cls != WILD else 99) for c in choices]
    seen: set[tuple[int, ...]] = set()
    for i, c in enumerate(choices):
        if c.cls == EMPTY:
            continue
        for horizontal in (True, False):
            run = run_along(values, i, horizontal)
            if len(run) < 2 or run in seen:
                continue
            seen.add(run)
            if _legal_line([choices[j].cls for j in run]):
                continue
            crossing = [_crossing(choices, values, j, not horizontal) for j in run]
            found = _reread(choices, run, crossing)
            if found is None and any(c is not None for c in crossing):  # else the same search again
                found = _reread(choices, run, None)
            if found is None:
                for j in run:
                    choices[j].confidence *= ILLEGAL_RUN_FACTOR
                    choices[j].rules.append("T-P4")
                continue
            best, options = found
            for j, k, opts in zip(run, best, options, strict=True):
                ch = choices[j]
                if ch.cls != k:
                    ch.cls = k
                    ch.rules.append("T-P4")
                ch.confidence = dict(opts)[k]
                values[j] = ENGINE_EMPTY if k == EMPTY else (k if k != WILD else 99)


def _reread(choices: list[SquareChoice], run: tuple[int, ...], crossing: list[Crossing] | None
            ) -> tuple[tuple[int, ...], list[list[tuple[int, float]]]] | None:
    """The most probable legal re-reading of an illegal ``run`` (keeping ``crossing`` runs legal,
    when given) and the options it was drawn from, or ``None`` when none is at least
    ``ADOPT_RATIO`` as probable as the reading (or the run is longer than ``LONGEST_REREAD``)."""
    if len(run) > LONGEST_REREAD:
        return None
    options = [_options(choices[j]) for j in run]
    if math.prod(len(o) for o in options) > MAX_COMBOS:
        options = [_options(choices[j], choices[j].candidates) for j in run]
    base = float(np.prod([dict(o).get(choices[j].cls, 1e-6) for j, o in zip(run, options, strict=True)]))
    best = _most_probable_legal(options, crossing)
    if len(run) <= WIDEST_REREAD:
        # one square misread beyond its top candidates, whenever that is the more probable reading
        narrow = options
        for m, j in enumerate(run):
            opts_m = [*narrow[:m], _options(choices[j], choices[j].values), *narrow[m + 1:]]
            if math.prod(len(o) for o in opts_m) > MAX_COMBOS:
                continue
            wider = _most_probable_legal(opts_m, crossing)
            if wider is not None and (best is None or wider[0] > best[0]):
                best, options = wider, opts_m
    if best is None or best[0] < ADOPT_RATIO * base:
        return None
    return best[1], options


def _crossing(choices: list[SquareChoice], values: list[int], index: int, horizontal: bool) -> Crossing:
    """The run through ``index`` along ``horizontal`` (the line across the run being re-read), when
    it has two or more tiles and is legal as read: a re-reading of ``index`` must keep it legal."""
    run = run_along(values, index, horizontal)
    if len(run) < 2:
        return None
    classes = [choices[j].cls for j in run]
    return (classes, run.index(index)) if _legal_line(classes) else None


def _keeps_crossings(classes: list[int], crossing: list[Crossing]) -> bool:
    """Whether reading a run's squares as ``classes`` leaves every run crossing it legal (a square
    read empty only shortens its crossing run, which stays legal)."""
    for k, cross in zip(classes, crossing, strict=True):
        if cross is None or k == EMPTY:
            continue
        line, at = cross
        if line[at] != k and not _legal_line([*line[:at], k, *line[at + 1:]]):
            return False
    return True


def _most_probable_legal(options: list[list[tuple[int, float]]], crossing: list[Crossing] | None = None
                         ) -> tuple[float, tuple[int, ...]] | None:
    """The most probable combination of a run's options that T-P4 allows, with its probability;
    with ``crossing`` (per square, ``_crossing``), one that also keeps the crossing runs legal."""
    best: tuple[float, tuple[int, ...]] | None = None
    for combo in itertools.product(*options):
        classes = [k for k, _ in combo]
        if not _legal_line(classes) or (crossing is not None and not _keeps_crossings(classes, crossing)):
            continue
        pr = math.prod(pk for _, pk in combo)
        if best is None or pr > best[0]:
            best = (pr, tuple(classes))
    return best
