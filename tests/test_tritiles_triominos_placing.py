"""Triominos placements from hand-built positions: matching (M-P1), the opening (M-P2, M-B3),
scores (M-S1: sum, bridge, one/two/three hexagons), and illegal events changing nothing."""

from __future__ import annotations

import pytest
from tritiles_helpers import BRIDGE, HEX1, HEX2, HEX3, kinds, lay, new_state, place, snapshot

from engine.core import IllegalEventError


def codes(verdict) -> list[str]:  # type: ignore[no-untyped-def]
    return [r.code for r in verdict.reasons]


def test_m_p1_an_edge_that_matches_with_a_mismatched_far_corner_is_illegal() -> None:
    state = new_state("triominos")
    lay(state, BRIDGE[:-1])
    # [0, 1] points down: bottom (0, 2), top-left (-1, 1), top-right (1, 1). Its top edge matches the
    # 5 and 4 of the tile on [0, 0]; its bottom corner touches the 4 of the tile on [1, 2].
    before = snapshot(state)
    verdict = state.check(place(state, (0, 1), (5, 5, 4)))
    assert not verdict.legal
    assert codes(verdict) == ["corner_mismatch"]
    reason = verdict.reasons[0]
    assert reason.rule == "M-P1"
    assert reason.message.startswith("the 5 at the bottom corner of [0, 1] meets a 4 on the tile at [1, 2]")
    assert reason.cells[:2] == ((0, 1), (1, 2))
    with pytest.raises(IllegalEventError):
        state.apply(place(state, (0, 1), (5, 5, 4)))
    assert snapshot(state) == before


def test_m_p1_an_edge_whose_numbers_differ_is_illegal_and_names_each_corner() -> None:
    state = new_state("triominos")
    lay(state, [((0, 0), (0, 1, 2))])
    # [1, 0] down: bottom (1, 1), top-left (0, 0), top-right (2, 0). Shared side: (0, 0)=0 and (1, 1)=1.
    verdict = state.check(place(state, (1, 0), (3, 4, 5)))
    assert codes(verdict) == ["corner_mismatch", "corner_mismatch"]
    assert "the 3 at the bottom corner of [1, 0] meets a 1" in verdict.reasons[0].message
    assert "the 4 at the top-left corner of [1, 0] meets a 0" in verdict.reasons[1].message
    assert state.check(place(state, (1, 0), (1, 0, 1))).legal


def test_m_p1_corner_contact_alone_is_not_enough() -> None:
    state = new_state("triominos")
    lay(state, [((0, 0), (0, 1, 2))])
    verdict = state.check(place(state, (2, 1), (1, 3, 4)))  # shares only the corner (1, 1)
    assert codes(verdict) == ["no_edge_contact"]
    assert codes(state.check(place(state, (0, 0), (0, 1, 2)))) == ["tile_already_played"]
    assert codes(state.check(place(state, (0, 0), (3, 4, 5)))) == ["cell_taken"]


def test_m_b1_a_turned_over_tile_and_a_second_copy_are_illegal() -> None:
    state = new_state("triominos")
    verdict = state.check(place(state, (0, 0), (2, 1, 0)))
    assert codes(verdict) == ["not_a_tile"] and verdict.reasons[0].rule == "M-B1"
    lay(state, [((0, 0), (0, 1, 2))])
    verdict = state.check(place(state, (1, 0), (1, 2, 0)))  # 0-1-2 again, rotated
    assert codes(verdict) == ["tile_already_played"]


def test_m_b3_the_opening_lies_on_the_origin_cell() -> None:
    state = new_state("triominos")
    assert codes(state.check(place(state, (2, 0), (1, 2, 3)))) == ["not_at_origin"]
    assert state.check(place(state, (0, 0), (1, 2, 3))).legal
    assert state.check(place(state, (1, 0), (1, 2, 3))).legal


def test_m_p2_the_opener_named_in_the_header_opens() -> None:
    state = new_state("triominos", players=3, first=2)
    verdict = state.check(place(state, (0, 0), (5, 5, 5), player=0))
    assert codes(verdict) == ["not_your_turn"] and verdict.reasons[0].rule == "M-P2"
    assert state.check(place(state, (0, 0), (5, 5, 5), player=2)).legal


@pytest.mark.parametrize(("edition", "tile", "expected"), [
    ("rulebook", (0, 0, 0), {"tile": 0, "start": 40}),
    ("pressman", (0, 0, 0), {"tile": 0, "start": 40}),
    ("rulebook", (5, 5, 5), {"tile": 15}),
    ("pressman", (5, 5, 5), {"tile": 15, "start": 10}),
    ("pressman", (3, 4, 5), {"tile": 12}),
])
def test_m_p2_opening_scores(edition: str, tile: tuple[int, int, int], expected: dict[str, int]) -> None:
    """0-0-0 opening scores 40 in both editions; pressman adds 10 to other triples."""
    state = new_state("triominos", edition=edition)
    verdict = state.apply(place(state, (0, 0), tile))
    assert kinds(verdict) == expected
    assert state.totals() == [sum(expected.values()), 0]


def test_m_s1_a_plain_placement_scores_its_sum() -> None:
    state = new_state("triominos")
    lay(state, [((0, 0), (0, 1, 2))])
    verdict = state.apply(place(state, (1, 0), (1, 0, 1)))
    assert kinds(verdict) == {"tile": 2} and verdict.score == 2
    assert state.totals() == [3, 2]


def test_m_s1_bridge_scores_40_more() -> None:
    state = new_state("triominos")
    verdicts = lay(state, BRIDGE)
    assert all("bridge" not in kinds(v) for v in verdicts[:-1])
    assert kinds(verdicts[-1]) == {"tile": 13, "bridge": 40}
    assert verdicts[-1].score == 53


@pytest.mark.parametrize(("position", "bonus"), [(HEX1, 50), (HEX2, 60), (HEX3, 70)])
def test_m_s1_hexagons_completed_by_one_tile(position: list, bonus: int) -> None:  # type: ignore[type-arg]
    """One tile completing one, two or three hexagons scores +50, +60, +70."""
    state = new_state("triominos")
    verdicts = lay(state, position)
    assert all("hexagon" not in kinds(v) for v in verdicts[:-1])
    last = verdicts[-1]
    total = sum(position[-1][1])
    assert kinds(last) == {"tile": total, "hexagon": bonus}
    assert last.score == total + bonus
    hexagon = next(i for i in last.breakdown if i.kind == "hexagon")
    assert len(hexagon.cells) == {50: 6, 60: 10, 70: 13}[bonus]


def test_illegal_events_change_nothing() -> None:
    state = new_state("triominos")
    lay(state, HEX3[:5])
    before = snapshot(state)
    bad = [place(state, (5, 5), (1, 2, 3)), place(state, (0, 0), (0, 1, 2)),
           place(state, (0, -1), (0, 2, 3), player=1 - state.current), place(state, (0, 1), (2, 1, 0))]
    for ev in bad:
        assert not state.check(ev).legal
        with pytest.raises(IllegalEventError):
            state.apply(ev)
    assert snapshot(state) == before
