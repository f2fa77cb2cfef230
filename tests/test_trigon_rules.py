"""Trigon legality reasons, turn order, passes, variants, options and scoring (B-L1..B-L6, B-V1, B-S1, B-S2)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from trigon_helpers import game_events, games, header, pass_, place

from engine.core import Header, Session
from engine.core.errors import EventFormatError, IllegalEventError, OptionsError
from engine.core.lattice import TriLattice
from engine.trigon import TrigonPlace, TrigonState
from engine.trigon.legality import judge_placement
from engine.trigon.pieces import MONOMINO, all_pieces
from engine.trigon.scoring import colour_score, placement_items

OPENING = [("blue", "q15,r15"), ("yellow", "i12,j12"), ("red", "r4,s4"), ("green", "z12,aa12")]


def _state(variant: str = "trigon", moves: list[tuple[str, str]] | None = None, **options: Any) -> TrigonState:
    state = TrigonState.new(header(variant, **options))
    for colour, cells in OPENING if moves is None else moves:
        state.apply(place(variant, colour, cells))
    return state


def _reasons(state: TrigonState, variant: str, colour: str, cells: str) -> list[dict[str, Any]]:
    verdict = state.check(place(variant, colour, cells))
    return [r.to_json() for r in verdict.reasons]


# -- reasons ---------------------------------------------------------------------------------------
def test_own_edge_reason_names_rule_and_cells_b_l3() -> None:
    """B-L3: a piece sharing an edge with its own colour is illegal; the reason names both triangles."""
    assert _reasons(_state(), "trigon", "blue", "s15,t15,u15") == [{
        "rule": "B-L3", "code": "own_edge", "cells": ["s15", "r15"],
        "message": "s15 shares an edge with your own piece at r15"}]


def test_no_corner_contact_b_l3() -> None:
    """B-L3: a later piece must touch its own colour at a corner."""
    reasons = _reasons(_state(), "trigon", "blue", "a10")
    assert [(r["rule"], r["code"]) for r in reasons] == [("B-L3", "no_corner_contact")]
    assert "blue" in reasons[0]["message"] and reasons[0]["cells"] == ["a10"]


def test_corner_contact_with_other_colours_is_free_b_l3() -> None:
    """B-L3: contact with other colours is free: blue may lie along red's edge."""
    state = _state()
    assert state.check(place("trigon", "blue", "q14")).legal
    legal = {ev.cells for ev in state.legal_placements()}  # type: ignore[attr-defined]
    assert ("q14",) in legal


def test_first_piece_needs_a_free_starting_point_b_l2() -> None:
    """B-L2: the first piece covers a free starting point; the reason lists the free ones."""
    state = _state(moves=[])
    reasons = _reasons(state, "trigon", "blue", "a10")
    assert [(r["rule"], r["code"]) for r in reasons] == [("B-L2", "no_start_point")]
    assert set(reasons[0]["cells"]) == {"r15", "r4", "j12", "j7", "z12", "z7"}
    state.apply(place("trigon", "blue", "q15,r15"))
    reasons = _reasons(state, "trigon", "yellow", "r15,s15")
    assert {(r["rule"], r["code"]) for r in reasons} == {("B-L1", "occupied"), ("B-L2", "no_start_point")}
    occupied = next(r for r in reasons if r["code"] == "occupied")
    assert occupied["cells"] == ["r15"] and "r15 by blue" in occupied["message"]


def test_invalid_placements_b_l1() -> None:
    """B-L1: off-board triangles, triangles not joined edge to edge, 7 triangles, unknown shapes."""
    state = _state()
    off = _reasons(state, "trigon", "blue", "aj9")
    assert [(r["rule"], r["code"], r["cells"]) for r in off] == [("B-L1", "off_board", ["aj9"])]
    off = _reasons(state, "trigon", "blue", "a18,b18")
    assert off[0]["code"] == "off_board" and off[0]["cells"] == ["a18", "b18"]
    apart = _reasons(state, "trigon", "blue", "s14,u14")
    assert apart[0]["code"] == "not_a_piece" and "not joined edge to edge" in apart[0]["message"]
    seven = _reasons(state, "trigon", "blue", "m14,n14,o14,p14,q14,r14,s14")
    assert seven[0]["code"] == "not_a_piece" and "1 to 6" in seven[0]["message"]
    # 7 cells in a row is not a piece, though every 6 of them are


def test_piece_already_played_b_l1() -> None:
    """B-L1: each piece once per colour; reported even with other broken rules (Pentobi's order)."""
    reasons = _reasons(_state(), "trigon", "blue", "c9,d9")
    assert reasons[0]["code"] == "piece_used" and reasons[0]["rule"] == "B-L1"
    assert "piece 2" in reasons[0]["message"]


def test_own_overlap_reports_occupied_only() -> None:
    """Laying a piece over its own colour says "occupied", not edge or corner noise."""
    assert [r["code"] for r in _reasons(_state(), "trigon", "blue", "r15")] == ["occupied"]


# -- turns and passes ------------------------------------------------------------------------------
def test_not_your_turn_changes_nothing_b_l4() -> None:
    """B-L4: blue, yellow, red, green; an event by another colour is illegal and changes nothing."""
    session = Session(header("trigon"))
    entry = session.submit(place("trigon", "red", "r4,s4"))
    assert not entry.verdict.legal
    assert entry.to_json()["reasons"][0]["code"] == "not_your_turn"
    assert "blue's turn" in entry.to_json()["reasons"][0]["message"]
    assert session.state.to_move().colour == "blue"
    assert isinstance(session.state, TrigonState) and session.state.pos.occupied == 0
    entry = session.submit(place("trigon", "blue", "q15,r15"))
    assert entry.to_json()["next"] == {"player": 1, "replay": False, "colour": "yellow"}


def test_pass_while_a_move_exists_is_illegal_b_l4() -> None:
    """B-L4: a colour must play if it can."""
    verdict = _state(moves=[]).check(pass_("trigon", "blue"))
    assert not verdict.legal and verdict.reasons[0].code == "pass_with_legal_move"
    assert "2478 legal placements" in verdict.reasons[0].message


def _blocked_game() -> tuple[dict[str, Any], int]:
    """A fixture game and the index of its first pass ply."""
    for g in games():
        for i, ply in enumerate(g["plies"]):
            if ply.get("pass") and i < len(g["plies"]) - 8:
                return g, i
    raise AssertionError("no early pass in the fixtures")


def test_blocked_colour_is_skipped_or_passes_explicitly_b_l4() -> None:
    """B-L4: a blocked colour is skipped; an explicit pass for it is accepted, and only in its turn."""
    game, first_pass = _blocked_game()
    v = game["variant"]
    events = game_events(game)
    state = TrigonState.new(header(v))
    for ev in events[:first_pass]:
        state.apply(ev)
    blocked = game["plies"][first_pass]["colour"] - 1
    assert not state.can_move(blocked)
    assert state.mover() != blocked
    assert blocked in state.skipped()
    skipping = state.copy()
    explicit = state.copy()
    nxt = events[first_pass + 1]
    skipping.apply(nxt)  # the next colour moves without the pass
    explicit.apply(events[first_pass])
    assert explicit.cursor == (blocked + 1) % explicit.colours
    again = explicit.check(pass_(v, blocked + 1))  # a second pass for it before its turn comes round
    assert not again.legal and again.reasons[0].code == "not_your_turn"
    explicit.apply(nxt)
    assert explicit.pos.occupied == skipping.pos.occupied and explicit.totals() == skipping.totals()
    assert state.status_json() == {"skipped": [state.rules.variant.colour_names[c] for c in state.skipped()]}


def test_plain_pass_of_a_one_colour_seat() -> None:
    """A core ``pass`` without colour (e.g. from the phone API) counts for the seat's only colour."""
    from engine.core import Pass

    state = _state(moves=[])
    verdict = state.check(Pass(player=0))
    assert verdict.reasons[0].code == "pass_with_legal_move"
    two = _state("trigon_2", moves=[])
    assert two.check(Pass(player=0)).reasons[0].code == "pass_needs_colour"


def test_game_over_b_s2() -> None:
    """B-S2: once no colour can move the game is over; any placement is illegal with reason game_over."""
    game = games()[0]
    state = TrigonState.new(header(game["variant"]))
    for ev in game_events(game, passes=False):
        state.apply(ev)
    outcome = state.outcome()
    assert outcome is not None and outcome.end_rule == "B-S2"
    assert state.to_move().player is None
    verdict = state.check(place(game["variant"], "blue", "r15"))
    assert not verdict.legal and verdict.reasons[0].code == "game_over"
    assert list(state.legal_placements()) == []
    assert state.check(pass_(game["variant"], "green")).legal  # trailing passes are harmless


# -- events ----------------------------------------------------------------------------------------
def test_event_player_follows_colour() -> None:
    """INTERFACES §1: the player of an event is the seat owning its colour; cells any order in, B-B6 out."""
    h2 = header("trigon_2")
    ev = TrigonState.parse_event({"type": "place", "colour": "red", "cells": "r15,q15,p16"}, h2)
    assert ev.to_json() == {"type": "place", "player": 0, "colour": "red", "cells": "q15,r15,p16"}
    ev = TrigonState.parse_event({"type": "place", "colour": "Green", "cells": ["r15"], "ts": 3.5}, h2)
    assert ev.player == 1 and ev.to_json()["ts"] == 3.5
    # a seat naming another seat's colour is an event, judged illegal (INTERFACES §2: not_your_turn)
    wrong = TrigonState.parse_event({"type": "place", "colour": "yellow", "player": 0, "cells": "r15"}, h2)
    assert wrong.player == 0 and wrong.to_json()["colour"] == "yellow"
    verdict = TrigonState.new(h2).check(wrong)
    assert not verdict.legal and verdict.player == 0
    assert [(r.rule, r.code) for r in verdict.reasons] == [("B-V1", "not_your_turn")]
    assert "played by player 1" in verdict.reasons[0].message
    blue_by_wrong_seat = TrigonState.parse_event({"type": "place", "colour": "blue", "player": 1, "cells": "r15"},
                                                 header("trigon"))
    four = TrigonState.new(header("trigon"))
    assert [r.code for r in four.check(blue_by_wrong_seat).reasons] == ["not_your_turn"]
    assert four.check(TrigonState.parse_event({"type": "place", "colour": "blue", "cells": "r15"},
                                              header("trigon"))).legal
    with pytest.raises(EventFormatError, match="trigon_3 plays blue, yellow, red"):
        TrigonState.parse_event({"type": "pass", "colour": "green"}, header("trigon_3"))
    with pytest.raises(EventFormatError, match='"colour"'):
        TrigonState.parse_event({"type": "place", "cells": "r15"}, h2)
    with pytest.raises(EventFormatError, match="not a triangle name"):
        TrigonState.parse_event({"type": "place", "colour": "red", "cells": "r15,15"}, h2)
    with pytest.raises(EventFormatError):
        TrigonState.parse_event({"type": "exchange", "player": 0}, h2)
    four = TrigonState.parse_event({"type": "pass", "player": 2}, header("trigon"))
    assert four.to_json() == {"type": "pass", "player": 2, "colour": "red"}


def test_header_options_b_v1() -> None:
    """B-V1: players must fit the variant; unknown options and values are rejected; defaults by count."""
    def new(players: int, **options: Any) -> TrigonState:
        return TrigonState.new(Header(game="trigon", players=tuple("ABCD"[:players]), options=options))

    assert [new(n).rules.variant.id for n in (1, 2, 3, 4)] == ["solo", "trigon_2", "trigon_3", "trigon"]
    assert new(2).rules.symmetric_start and not new(4).rules.symmetric_start
    with pytest.raises(OptionsError, match="2 player"):
        new(3, variant="trigon_2")
    with pytest.raises(OptionsError, match="unknown"):
        new(4, colour_count=4)
    with pytest.raises(OptionsError, match="variant"):
        new(4, variant="classic")
    with pytest.raises(OptionsError, match="B-L6"):
        new(4, variant="trigon", symmetric_start=True)
    with pytest.raises(OptionsError, match="true or false"):
        new(4, alternate_contact="yes")
    with pytest.raises(OptionsError, match="first_player"):
        TrigonState.new(Header(game="trigon", players=("A", "B", "C", "D"), first_player=1))
    assert new(4, variant="teams", symmetric_start=True).rules.symmetric_start


# -- variants --------------------------------------------------------------------------------------
def test_trigon_3_board_and_order_b_v1() -> None:
    """B-V1: 3 players, blue, yellow, red on the side-8 board; red is followed by blue."""
    state = _state("trigon_3", moves=[("blue", "p14"), ("yellow", "h11"), ("red", "x6")])
    assert state.pos.table.board.size == 384
    assert state.to_move() .colour == "blue" and state.to_move().player == 0
    assert state.totals() == [-109, -109, -109]
    assert state.check(place("trigon_3", "blue", "a10")).reasons[0].code == "off_board"  # a10 is on side 9 only


def test_teams_turns_and_totals_b_v1() -> None:
    """B-V1, B-S1: teams blue+red against yellow+green, four people; each seat gets its team's score."""
    session = Session(Header(game="trigon", players=("A", "B", "C", "D"), options={"variant": "teams"}))
    seats = []
    for colour, cells in [("blue", "p15,q15,r15"), ("yellow", "i12,j12"), ("red", "r4"), ("green", "z12,aa12")]:
        entry = session.submit(place("teams", colour, cells))
        assert entry.verdict.legal
        seats.append(entry.verdict.player)
    assert seats == [0, 1, 2, 3]
    summary = session.summary_json()
    assert summary["totals"] == [-107, -108, -109, -108]
    assert summary["player_totals"] == [-216, -216, -216, -216]
    assert summary["teams"] == [[0, 2], [1, 3]]


def test_solo_plays_all_colours_b_v1() -> None:
    """B-V1: solo: one person places all four colours in turn; the player's score is their sum."""
    session = Session(Header(game="trigon", players=("Sam",), options={"variant": "solo"}))
    for colour, cells in OPENING:
        entry = session.submit(TrigonState.parse_event({"type": "place", "colour": colour, "cells": cells},
                                                       session.header))
        assert entry.verdict.legal and entry.verdict.player == 0
    assert session.state.to_move().colour == "blue"
    assert session.summary_json()["player_totals"] == [-432]


def test_two_player_totals_b_s1() -> None:
    """B-S1: in trigon_2 a player's score is the sum of their two colours."""
    state = _state("trigon_2", moves=[("blue", "q15,r15"), ("yellow", "i12,j12"), ("red", "r4")],
                   symmetric_start=False)
    assert state.totals() == [-108, -108, -109, -110]
    assert state.player_totals() == [-217, -218]


# -- options ---------------------------------------------------------------------------------------
def test_symmetric_start_b_l6() -> None:
    """B-L6 (default for 2 players): red's first piece covers the point opposite blue's start."""
    state = _state("trigon_2", moves=[("blue", "q15,r15"), ("yellow", "i12,j12")], symmetric_start=True)
    reasons = _reasons(state, "trigon_2", "red", "j7,k7")
    assert [(r["rule"], r["code"], r["cells"]) for r in reasons] == [("B-L6", "symmetric_start", ["r4"])]
    assert "opposite blue's start r15" in reasons[0]["message"]
    moves = list(state.legal_placements())
    assert len(moves) == 413 and all("r4" in ev.cells for ev in moves)  # type: ignore[attr-defined]
    assert state.check(place("trigon_2", "red", "r4,s4")).legal
    off = _state("trigon_2", moves=[("blue", "q15,r15"), ("yellow", "i12,j12")], symmetric_start=False)
    assert off.check(place("trigon_2", "red", "j7,k7")).legal
    assert len(list(off.legal_placements())) == 4 * 413 - _blocked_near(off)


def _blocked_near(state: TrigonState) -> int:
    """Placements over a free start that the pieces already laid cut off (counted independently)."""
    table = state.pos.table
    free = table.board.start_mask & ~state.pos.occupied
    return sum(1 for m in table.masks if m & free and m & state.pos.occupied)


def test_symmetric_start_falls_back_when_mirror_point_taken_b_l6() -> None:
    """B-L6 house reading: if the opposite point is already covered, any free starting point will do."""
    state = _state("trigon_2", moves=[("blue", "q15,r15"), ("yellow", "r4,s4")], symmetric_start=True)
    covered = {s for ev in state.legal_placements() for s in ev.cells  # type: ignore[attr-defined]
               if s in ("j12", "j7", "z12", "z7")}
    assert covered == {"j12", "j7", "z12", "z7"}


def _straight_conflict(lat: TriLattice, new: set[tuple[int, int]], old_pieces: list[set[tuple[int, int]]]) -> bool:
    """Independent B-L5: at a shared corner point, does either piece cover 3 consecutive triangles?"""
    def run(cells: set[tuple[int, int]], around: tuple[tuple[int, int], ...]) -> int:
        flags = [c in cells for c in around] * 2
        best = cur = 0
        for f in flags:
            cur = cur + 1 if f else 0
            best = max(best, cur)
        return min(best, 6)

    for cell in new:
        for v in lat.vertices(cell):
            around = lat.cells_at_vertex(v)
            for old in old_pieces:
                if any(c in old for c in around) and (run(new, around) >= 3 or run(old, around) >= 3):
                    return True
    return False


def test_alternate_contact_b_l5() -> None:
    """B-L5: with the option, a corner may not touch a straight side of the same colour."""
    plain = _state("trigon", moves=[("blue", "p15,q15,r15"), *OPENING[1:]])
    alt = _state("trigon", moves=[("blue", "p15,q15,r15"), *OPENING[1:]], alternate_contact=True)
    assert plain.check(place("trigon", "blue", "q14")).legal
    reasons = _reasons(alt, "trigon", "blue", "q14")
    assert [(r["rule"], r["code"], r["cells"]) for r in reasons] == [("B-L5", "alternate_contact", ["q14"])]
    assert alt.check(place("trigon", "blue", "p16")).legal  # two triangles each side: corner to corner


def test_alternate_contact_matches_independent_check_b_l5() -> None:
    """B-L5 over a seeded random game: the option removes exactly the moves an independent check forbids,
    and the reason-giving judge agrees with the generator on every placement of the board."""
    rng = random.Random(5)
    state = TrigonState.new(header("trigon", alternate_contact=True))
    plain = TrigonState.new(header("trigon"))
    board = state.pos.table.board
    pieces: list[list[set[tuple[int, int]]]] = [[] for _ in range(4)]
    checked = 0
    for ply in range(28):
        colour = state.mover()
        assert colour is not None
        alt_moves = set(state.pos.legal_masks(colour))
        plain.pos = state.pos.copy()
        plain.pos.alternate_contact = False
        base = set(plain.pos.legal_masks(colour))
        assert alt_moves <= base
        for m in base if ply % 3 == 2 else ():
            cells = {board.xy[c] for c in board.cells_of(m)}
            conflict = bool(pieces[colour]) and _straight_conflict(board.lattice, cells, pieces[colour])
            assert (m in alt_moves) == (not conflict)
            checked += 1
        if ply == 20:
            for pid, m in enumerate(state.pos.table.masks):
                judged = judge_placement(state.pos, colour, board.names_of(m))
                assert judged.legal == (m in alt_moves), board.names_of(m)
                assert judged.placement == pid
        m = rng.choice(sorted(alt_moves))
        pieces[colour].append({board.xy[c] for c in board.cells_of(m)})
        state.apply(TrigonPlace(player=colour, colour=state.rules.variant.colour_names[colour],
                                cells=board.names_of(m)))
    assert checked > 2000


def test_judge_agrees_with_generator_on_every_placement() -> None:
    """B-L1..B-L3: at fixture positions, the reason-giving judge and the fast generator agree on all
    32131 placements of the board."""
    game = games()[1]
    state = TrigonState.new(header(game["variant"]))
    board = state.pos.table.board
    events = game_events(game, passes=False)
    for k, ev in enumerate(events[:30]):
        if k in (3, 17, 29):
            colour = state.mover()
            assert colour is not None
            legal = set(state.pos.legal_masks(colour))
            assert state.pos.count_legal(colour) == len(legal)
            for m in state.pos.table.masks:
                assert judge_placement(state.pos, colour, board.names_of(m)).legal == (m in legal)
        state.apply(ev)


# -- scoring ---------------------------------------------------------------------------------------
def test_scores_b_s1() -> None:
    """B-S1: −1 per triangle left; +15 for all 22; +5 more if the 1 came last."""
    state = _state(moves=[])
    pos = state.pos
    assert [colour_score(pos, c) for c in range(4)] == [-110] * 4
    b = pos.table.board
    single = pos.table.index_of_mask[1 << b.index_of_name["r15"]]
    pos.unused[0] = 1 << MONOMINO  # blue has only the 1 left
    items = placement_items(pos, 0, single, ("r15",))
    assert [(i.kind, i.points, i.rule) for i in items] == [("placed", 1, "B-S1"), ("end_bonus", 15, "B-S1"),
                                                          ("end_bonus", 5, "B-S1")]
    assert colour_score(pos, 0) == -1
    pos.play(0, single)
    assert colour_score(pos, 0) == 20
    pos.unused[1] = 1 << 0  # yellow has only the I6 left and plays it last
    i6 = next(p for p, piece in enumerate(pos.table.pieces) if piece == 0 and not pos.table.masks[p] & pos.occupied)
    items = placement_items(pos, 1, i6, ())
    assert [i.points for i in items] == [6, 15]
    pos.play(1, i6)
    assert colour_score(pos, 1) == 15
    assert sum(p.size for p in all_pieces()) == 110


def test_apply_refuses_illegal() -> None:
    state = _state()
    with pytest.raises(IllegalEventError, match="B-L3"):
        state.apply(place("trigon", "blue", "s15,t15,u15"))


def test_board_json_lists_covered_triangles() -> None:
    """The board for the API: covered triangles with their colour, as ``companion read`` reports them."""
    board = _state().board_json()
    assert board["variant"] == "trigon" and board["side"] == 9
    assert {"cell": "r15", "colour": "blue"} in board["cells"]
    assert len(board["cells"]) == 8
