"""M-B1 / D-B1: a table holds each of the 56 triples once; the reader decodes its tiles together."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from vision.read.tritiles.tile_set import MOVED_CONFIDENCE, decode_table, min_cost_assignment, tile_kinds
from vision.read.tritiles.values import decode_tile, valid_triples


def test_the_set_has_56_kinds_each_a_sorted_triple() -> None:
    kinds = tile_kinds()
    assert len(kinds) == 56
    assert all(a <= b <= c for a, b, c in kinds)
    assert {tuple(sorted(t)) for t in valid_triples()} == set(kinds)


@pytest.mark.parametrize(("n", "m"), [(1, 1), (3, 3), (4, 6), (5, 5), (6, 8)])
def test_assignment_is_the_cheapest_one_to_one(n: int, m: int) -> None:
    rng = np.random.default_rng(100 * n + m)
    for _ in range(25):
        cost = rng.normal(size=(n, m))
        got = min_cost_assignment(cost)
        assert len(set(got)) == n
        best = min(sum(cost[i, p[i]] for i in range(n)) for p in itertools.permutations(range(m), n))
        assert sum(cost[i, got[i]] for i in range(n)) == pytest.approx(best)


def test_more_rows_than_columns_is_refused() -> None:
    with pytest.raises(ValueError):
        min_cost_assignment(np.zeros((3, 2)))


def _scores(values: tuple[int, int, int], sure: float) -> list[np.ndarray]:
    """Corner log-likelihoods favouring ``values`` by ``sure`` nats."""
    out = []
    for v in values:
        s = np.full(6, -sure)
        s[v] = 0.0
        out.append(s)
    return out


def test_a_triple_read_twice_goes_to_the_less_sure_tile_s_next_reading() -> None:
    sure = _scores((1, 2, 3), 6.0)
    # the doubtful tile: (1, 2, 3) at its first corner by a hair, (4, 2, 3) close behind
    doubtful = _scores((1, 2, 3), 6.0)
    doubtful[0][4] = -0.3
    alone = [decode_tile(s) for s in (sure, doubtful)]
    assert alone[0][0] == alone[1][0] == (1, 2, 3)
    (v0, c0), (v1, c1) = decode_table([sure, doubtful])
    assert v0 == (1, 2, 3)
    assert c0 == pytest.approx(alone[0][1])  # the sure tile keeps its reading and confidence
    assert v1 == (4, 2, 3)
    assert c1 <= MOVED_CONFIDENCE


def test_tiles_of_different_kinds_decode_as_alone() -> None:
    rng = np.random.default_rng(7)
    kinds = rng.permutation(len(tile_kinds()))[:12]
    tables = []
    for k in kinds:
        a, b, c = tile_kinds()[k]
        s = _scores((b, c, a), 4.0)
        for row in s:
            row += rng.normal(0, 0.3, 6)
        tables.append(s)
    assert decode_table(tables) == [decode_tile(s) for s in tables]


def test_more_tiles_than_the_set_holds_decode_one_by_one() -> None:
    tables = [_scores((0, 0, 0), 5.0) for _ in range(57)]
    assert decode_table(tables) == [decode_tile(s) for s in tables]
    assert decode_table([]) == []
