"""Every worked case of RULES.md's Triolet table (T-S1–T-S7): exact score and exact breakdown."""

from __future__ import annotations

import json
from typing import Any

import pytest
from triolet_helpers import header, position, run_cli

from engine.core import Verdict
from engine.triolet import TrioletState, place

RULE_OF_KIND = {"pair": "T-S2", "trio": "T-S3", "triolet_bonus": "T-S5"}


def item(kind: str, cells: str, points: int, mult: str | None = None) -> dict[str, Any]:
    """A breakdown item as INTERFACES §2 prints it; ``mult`` like ``"H8x2"``."""
    out: dict[str, Any] = {"kind": kind, "cells": cells.split(), "points": points, "rule": RULE_OF_KIND[kind]}
    if mult is not None:
        square, factor = mult.split("x")
        out["multiplier"] = {"square": square, "factor": int(factor), "rule": "T-S4"}
    return out


def breakdown(verdict: Verdict) -> list[dict[str, Any]]:
    assert verdict.legal, verdict.reasons
    out = []
    for i in verdict.breakdown:
        j = i.to_json()
        j.pop("detail", None)
        out.append(j)
    return out


# (case, board before, placement, expected score, expected breakdown)
CASES: list[tuple[str, dict[str, int | tuple[int, bool]], list[tuple[Any, ...]], int, list[dict[str, Any]]]] = [
    ("two tiles make 9+6 and 7+6", {"H8": 9}, [("H9", 6), ("I9", 7)], 28,
     [item("pair", "H9 I9", 13), item("pair", "H8 H9", 15)]),
    ("one tile completes 7,5,3", {"G10": 7, "H10": 5}, [("I10", 3)], 30,
     [item("trio", "G10 H10 I10", 30)]),
    ("triolet 10,5,0 (its 0 pairs with a 0: a pair worth 0)", {"J8": 0},
     [("H9", 10), ("I9", 5), ("J9", 0)], 80,
     [item("trio", "H9 I9 J9", 30), item("triolet_bonus", "H9 I9 J9", 50), item("pair", "J8 J9", 0)]),
    ("4 on a double completes triolet 4,9,2 and pairs with 10: 124, not 98", {"L7": 10},
     [("L8", 4), ("M8", 9), ("N8", 2)], 124,
     [item("trio", "L8 M8 N8", 60, "L8x2"), item("triolet_bonus", "L8 M8 N8", 50), item("pair", "L7 L8", 14)]),
    ("triolet 7,1,7 with the 1 on a triple; the 1 also completes trio 1,6,8", {"E12": 8, "E13": 6},
     [("D14", 7), ("E14", 1), ("F14", 7)], 170,
     [item("trio", "D14 E14 F14", 90, "E14x3"), item("triolet_bonus", "D14 E14 F14", 50),
      item("trio", "E12 E13 E14", 30)]),
    ("one tile: 10+3 (H8's double was used by an earlier turn)", {"H8": 10}, [("I8", 3)], 13,
     [item("pair", "H8 I8", 13)]),
    ("one tile completes trio 2,4,9 (rulebook)", {"G10": 2, "H10": 4}, [("I10", 9)], 30,
     [item("trio", "G10 H10 I10", 30)]),
    ("one tile completes trios 9,6,0 and 8,7,0", {"H10": 9, "I10": 6, "J8": 8, "J9": 7}, [("J10", 0)], 60,
     [item("trio", "H10 I10 J10", 30), item("trio", "J8 J9 J10", 30)]),
    ("one tile: 3+9 and 4+9", {"G9": 3, "H8": 4}, [("H9", 9)], 25,
     [item("pair", "G9 H9", 12), item("pair", "H8 H9", 13)]),
    ("one tile: trio 3,3,9 and pair 1+3", {"F9": 3, "H9": 9, "G8": 1}, [("G9", 3)], 34,
     [item("trio", "F9 G9 H9", 30), item("pair", "G8 G9", 4)]),
    ("two tiles: trio 2,7,6 and pair 5+2", {"I9": 6, "G8": 5}, [("G9", 2), ("H9", 7)], 37,
     [item("trio", "G9 H9 I9", 30), item("pair", "G8 G9", 7)]),
    ("two tiles: 11+wild and wild+14 (a wild scores 0)", {"J10": 14}, [("I9", 11), ("J9", 1, True)], 25,
     [item("pair", "I9 J9", 11), item("pair", "J9 J10", 14)]),
    ("triolet 5,10,0 that also completes trio 11,4,0", {"J7": 11, "J8": 4},
     [("H9", 5), ("I9", 10), ("J9", 0)], 110,
     [item("trio", "H9 I9 J9", 30), item("triolet_bonus", "H9 I9 J9", 50), item("trio", "J7 J8 J9", 30)]),
    ("one tile on a double completes trio 2,8,5", {"B8": 2, "C8": 8}, [("D8", 5)], 60,
     [item("trio", "B8 C8 D8", 60, "D8x2")]),
    ("10 on a double pairs with 5 and with 4", {"J11": 5, "K12": 4}, [("K11", 10)], 39,
     [item("pair", "J11 K11", 25, "K11x2"), item("pair", "K11 K12", 14)]),
    ("6 on x2 beside a 7", {"J11": 7}, [("K11", 6)], 19, [item("pair", "J11 K11", 19, "K11x2")]),
    ("6 on x3 beside a 7", {"J14": 7}, [("K14", 6)], 25, [item("pair", "J14 K14", 25, "K14x3")]),
    ("11 on x2 pairs with 1 and with 3", {"J11": 1, "K12": 3}, [("K11", 11)], 37,
     [item("pair", "J11 K11", 23, "K11x2"), item("pair", "K11 K12", 14)]),
    ("11 on x3 pairs with 1 and with 3", {"J14": 1, "K15": 3}, [("K14", 11)], 48,
     [item("pair", "J14 K14", 34, "K14x3"), item("pair", "K14 K15", 14)]),
    ("tile on x2 completes a trio and a pair 14 (the trio, not the first run, takes the x2)",
     {"K9": 9, "K10": 2, "J11": 10}, [("K11", 4)], 74,
     [item("pair", "J11 K11", 14), item("trio", "K9 K10 K11", 60, "K11x2")]),
    ("tile on x3 completes a trio and a pair 14", {"I14": 9, "J14": 2, "K13": 10}, [("K14", 4)], 104,
     [item("trio", "I14 J14 K14", 90, "K14x3"), item("pair", "K13 K14", 14)]),
    ("tile on x2 completes two trios", {"I11": 9, "J11": 2, "K9": 8, "K10": 3}, [("K11", 4)], 90,
     [item("trio", "I11 J11 K11", 60, "K11x2"), item("trio", "K9 K10 K11", 30)]),
    ("tile on x3 completes two trios", {"I14": 9, "J14": 2, "K12": 8, "K13": 3}, [("K14", 4)], 120,
     [item("trio", "I14 J14 K14", 90, "K14x3"), item("trio", "K12 K13 K14", 30)]),
]


@pytest.mark.parametrize(("case", "board", "tiles", "score", "expected"), CASES, ids=[c[0] for c in CASES])
def test_worked_case_T_S(case: str, board: dict[str, int | tuple[int, bool]], tiles: list[tuple[Any, ...]],
                         score: int, expected: list[dict[str, Any]]) -> None:
    """RULES.md worked cases (T-S1–T-S5): the score and every breakdown item."""
    state = position(board)
    verdict = state.check(place(0, *tiles))
    assert breakdown(verdict) == expected
    assert verdict.score == score == sum(i["points"] for i in expected)


def test_opening_11_on_centre_and_3_beside_T_S4() -> None:
    """Opening: 11 on H8 (double) and 3 beside: 11×2 + 3 = 25, the INTERFACES §2 example item."""
    state = TrioletState.new(header())
    verdict = state.check(place(0, ("H8", 11), ("I8", 3)))
    assert breakdown(verdict) == [item("pair", "H8 I8", 25, "H8x2")]
    assert verdict.score == 25


def test_lone_first_tile_scores_nothing_T_S6() -> None:
    state = TrioletState.new(header())
    verdict = state.check(place(0, ("H8", 7)))
    assert verdict.legal and verdict.breakdown == () and verdict.score == 0


def test_triolet_with_a_wild_earns_no_bonus_T_S5() -> None:
    """A wild in the three placed tiles: the trio still scores 30, but no +50."""
    state = position({"J8": 0})
    verdict = state.check(place(0, ("H9", 10), ("I9", 5, True), ("J9", 0)))
    assert breakdown(verdict) == [item("trio", "H9 I9 J9", 30), item("pair", "J8 J9", 0)]


def test_wild_on_a_double_in_a_pair_multiplies_zero_T_S2_T_S4() -> None:
    """A wild's point value is 0, so a double under it adds nothing; the factor still names one run."""
    state = position({"J11": 7})
    verdict = state.check(place(0, ("K11", 6, True)))
    assert breakdown(verdict) == [item("pair", "J11 K11", 7, "K11x2")]


def test_rulebook_two_player_opening_through_companion_check() -> None:
    """The rulebook's two-player opening (examples/triolet_opening.jsonl): A 25, B 27, A 37, B 52, A 60."""
    proc = run_cli("check", "examples/triolet_opening.jsonl")
    assert proc.returncode == 0, proc.stderr
    lines = [json.loads(x) for x in proc.stdout.splitlines()]
    events, summary = lines[:-1], lines[-1]
    assert [(e["player"], e["score"]) for e in events] == [(0, 25), (1, 27), (0, 37), (1, 52), (0, 60)]
    assert all(e["legal"] for e in events)
    got = [[{k: v for k, v in i.items() if k != "detail"} for i in e["breakdown"]] for e in events]
    assert got == [
        [item("pair", "H8 I8", 25, "H8x2")],
        [item("pair", "G9 H9", 12), item("pair", "H8 H9", 15)],
        [item("pair", "F8 F9", 7), item("trio", "F9 G9 H9", 30)],
        [item("pair", "G10 H10", 7), item("pair", "G9 G10", 15), item("trio", "H8 H9 H10", 30)],
        [item("trio", "F10 G10 H10", 30), item("trio", "F8 F9 F10", 30)],
    ]
    assert [e["totals"] for e in events][-1] == [122, 79]
    assert [e["bag"] for e in events] == [72, 70, 68, 66, 65]
    assert summary == {"summary": True, "totals": [122, 79], "winner": [], "ended": False, "end_rule": None,
                       "bag": 65, "rack_sizes": [3, 3], "reveals_pending": []}
