"""Game-aware decisions of the Triolet reader: tile counts (T-B3, T-P7) and runs (T-P4)."""

from __future__ import annotations

import itertools

import numpy as np

from vision.read.triolet.classifier import EMPTY, N_CLASSES, WILD
from vision.read.triolet.consistency import decide


def board(**squares: list[tuple[int, float]]) -> np.ndarray:
    """225×18 probabilities: every square empty except the named ones, given as (class, p) lists."""
    probs = np.zeros((225, N_CLASSES), np.float32)
    probs[:, EMPTY] = 0.98
    probs[:, 0] = 0.02
    for name, dist in squares.items():
        col, row = "ABCDEFGHIJKLMNO".index(name[0]), int(name[1:]) - 1
        i = row * 15 + col
        probs[i] = 0.0
        for k, p in dist:
            probs[i, k] = p
        probs[i] /= probs[i].sum()
    return probs


def index(name: str) -> int:
    return (int(name[1:]) - 1) * 15 + "ABCDEFGHIJKLMNO".index(name[0])


def test_reader_consistency_plain_reading_kept() -> None:
    choices = decide(board(H8=[(7, 0.95), (1, 0.05)], I8=[(8, 0.9), (3, 0.1)]))
    assert choices[index("H8")].cls == 7 and choices[index("I8")].cls == 8  # 7 + 8 = 15 ≤ 15: legal pair
    assert choices[index("H8")].confidence > 0.9
    assert choices[index("A1")].cls == EMPTY
    assert choices[index("H8")].rules == []


def test_reader_consistency_count_limit_t_p7() -> None:
    """Value 15 exists once (T-B3): a second 15 is a misread and moves to its next candidate."""
    choices = decide(board(B2=[(15, 0.9), (13, 0.1)], N14=[(15, 0.6), (10, 0.4)]))
    assert choices[index("B2")].cls == 15
    assert choices[index("N14")].cls == 10
    assert "T-P7" in choices[index("N14")].rules
    assert choices[index("N14")].confidence < 0.5


def test_reader_consistency_illegal_trio_reread_t_p4() -> None:
    """A trio must total 15 (T-P4): 5 + 6 + 5 = 16 is re-read as 5 + 5 + 5 from the candidates."""
    choices = decide(board(G8=[(5, 0.9), (6, 0.1)], H8=[(6, 0.55), (5, 0.45)], I8=[(5, 0.9), (3, 0.1)]))
    assert [choices[index(s)].cls for s in ("G8", "H8", "I8")] == [5, 5, 5]
    assert "T-P4" in choices[index("H8")].rules
    assert choices[index("H8")].confidence < 0.5


def test_reader_consistency_wild_makes_any_trio_legal() -> None:
    choices = decide(board(G8=[(9, 0.9), (1, 0.1)], H8=[(WILD, 0.9), (8, 0.1)], I8=[(2, 0.9), (3, 0.1)]))
    assert [choices[index(s)].cls for s in ("G8", "H8", "I8")] == [9, WILD, 2]
    assert all(not choices[index(s)].rules for s in ("G8", "H8", "I8"))


def test_reader_consistency_unfixable_run_is_doubted_not_guessed() -> None:
    """Four in a row breaks T-P4 whatever the values: readings stay, confidence drops."""
    choices = decide(board(E3=[(1, 0.95), (2, 0.05)], F3=[(2, 0.95), (3, 0.05)], G3=[(3, 0.95), (4, 0.05)],
                           H3=[(4, 0.95), (1, 0.05)]))
    for s, v in zip(("E3", "F3", "G3", "H3"), (1, 2, 3, 4), strict=True):
        assert choices[index(s)].cls == v
        assert choices[index(s)].confidence < 0.6
        assert "T-P4" in choices[index(s)].rules


def test_reader_consistency_top_candidates_sorted() -> None:
    choices = decide(board(H8=[(6, 0.7), (9, 0.2), (8, 0.1)]))
    cands = choices[index("H8")].candidates
    assert [k for k, _ in cands] == [6, 9, 8]
    assert all(a[1] >= b[1] for a, b in itertools.pairwise(cands))


def test_reader_consistency_phantom_tile_read_empty_t_p4() -> None:
    """A tile not surely there (a hand read as a 6, 20 % empty) that makes a run illegal
    (6 + 2 + 6 = 14) is read empty; the likelier 2 keeps its value instead of becoming a 3."""
    choices = decide(board(H12=[(6, 1.0)], H13=[(2, 0.8), (3, 0.2)],
                           H14=[(6, 0.4), (4, 0.2), (1, 0.2), (EMPTY, 0.2)]))
    assert choices[index("H12")].cls == 6
    assert choices[index("H13")].cls == 2 and choices[index("H13")].rules == []
    assert choices[index("H14")].cls == EMPTY and "T-P4" in choices[index("H14")].rules
    # the same run with the third tile sure of being there: re-read from values, nothing emptied
    sure = decide(board(H12=[(6, 1.0)], H13=[(2, 0.8), (3, 0.2)], H14=[(6, 0.9), (4, 0.1)]))
    assert [sure[index(s)].cls for s in ("H12", "H13", "H14")] == [6, 3, 6]


def test_reader_consistency_sure_tiles_never_emptied() -> None:
    """Four sure tiles in a row stay tiles (no square is read empty to make the run legal)."""
    choices = decide(board(E3=[(1, 0.995), (EMPTY, 0.005)], F3=[(2, 0.995), (EMPTY, 0.005)],
                           G3=[(3, 0.995), (EMPTY, 0.005)], H3=[(4, 0.995), (EMPTY, 0.005)]))
    assert all(choices[index(s)].cls != EMPTY for s in ("E3", "F3", "G3", "H3"))


def test_reader_consistency_covered_square_is_mended_first_t_p4() -> None:
    """I10–K10 as in frame 2,600,222: a 3 under a finger read 1 / 4 / 7, two clear 6s. 1 + 6 + 6 = 13
    breaks T-P4. Without the cover flag the best legal re-read is 4 + 6 + 5 (a sure 6 changed);
    with it, any value may stand under the finger, so 3 + 6 + 6 is read and the 6s stay."""
    probs = board(I10=[(1, 0.22), (4, 0.125), (7, 0.122), (3, 0.001), (EMPTY, 0.01)],
                  J10=[(6, 0.999), (5, 0.001)], K10=[(6, 0.954), (5, 0.046)])
    plain = decide(probs)
    assert [plain[index(s)].cls for s in ("I10", "J10", "K10")] == [4, 6, 5]
    covered = np.zeros(225, bool)
    covered[index("I10")] = True
    got = decide(probs, covered)
    assert [got[index(s)].cls for s in ("I10", "J10", "K10")] == [3, 6, 6]
    assert "T-P4" in got[index("I10")].rules and got[index("K10")].rules == []
    assert got[index("K10")].confidence > 0.9
    assert got[index("I10")].confidence < 0.1  # a value the rules chose, not one seen
    assert len(got[index("I10")].candidates) == 3  # the reported candidates stay the top three


def test_reader_consistency_sure_reading_under_a_hand_is_kept_t_p4() -> None:
    """L12–N12 as in dev frame 10,801,124: a hand lies over the grid lines of all three; L12's
    4 is in view and read surely, M12 and N12 (truly 2 and 9) are under the fingers. 4 + 0 + 6
    breaks T-P4 (a trio totals 15). With every covered square doubted alike, the likeliest
    legal re-read made the clear 4 a wild; a sure reading under a hand is doubted less, so the
    unsure squares beside it are re-read instead."""
    probs = board(L11=[(6, 0.963), (8, 0.02), (0, 0.009), (9, 0.006), (5, 0.002)],
                  N11=[(2, 1.0)], M13=[(12, 1.0)],
                  L12=[(4, 0.9995), (WILD, 0.0005)],
                  M12=[(0, 0.335), (6, 0.237), (8, 0.095), (4, 0.053), (5, 0.051), (2, 0.03)],
                  N12=[(6, 0.294), (9, 0.233), (0, 0.215), (5, 0.158), (8, 0.058)])
    covered = np.zeros(225, bool)
    for s in ("L12", "M12", "N12", "O12"):
        covered[index(s)] = True
    got = decide(probs, covered)
    assert got[index("L12")].cls == 4
    assert got[index("L12")].rules == []
    trio = [got[index(s)].cls for s in ("L12", "M12", "N12")]
    assert WILD not in trio and sum(trio) == 15  # legal (T-P4), mended under the fingers
    assert "T-P4" in got[index("M12")].rules or "T-P4" in got[index("N12")].rules
    assert got[index("M12")].cls + 12 <= 15  # the column M12–M13 stays legal too


def test_reader_consistency_covered_squares_keep_legal_readings() -> None:
    """A covered square in a legal run keeps its reading; only its confidence reflects the doubt."""
    probs = board(H8=[(7, 0.9), (1, 0.1)], I8=[(8, 0.95), (3, 0.05)])
    covered = np.zeros(225, bool)
    covered[index("H8")] = True
    plain, got = decide(probs), decide(probs, covered)
    assert got[index("H8")].cls == plain[index("H8")].cls == 7
    assert got[index("H8")].confidence < plain[index("H8")].confidence
    assert got[index("I8")].confidence == plain[index("I8")].confidence


def test_reader_consistency_cut_off_tile_kept_when_a_washed_out_tile_may_join_it_t_p3() -> None:
    """I10 is cut off only by I9, read empty at 0.995 (glare may wash a tile out), and I10 is sure:
    it stays, and no tile is invented at I9. Were I10 as unsure as I9, it would be a phantom."""
    probs = board(H8=[(7, 0.99), (1, 0.01)], I8=[(8, 0.99), (3, 0.01)],
                  I9=[(EMPTY, 0.995), (5, 0.003), (3, 0.002)], I10=[(4, 0.99), (1, 0.01)])
    got = decide(probs)
    assert got[index("I9")].cls == EMPTY and got[index("I10")].cls == 4
    assert not got[index("I10")].rules
    probs[index("I10")] = 0.0
    probs[index("I10"), [4, EMPTY]] = 0.99, 0.01
    assert decide(probs)[index("I10")].cls == EMPTY


def test_reader_consistency_phantom_tile_cut_off_is_dropped_t_p3() -> None:
    """A "tile" read far from the others at 0.7 is a phantom (a pattern, a shadow): joining it would
    take several squares read surely empty, so it is read empty."""
    got = decide(board(H8=[(7, 0.99), (1, 0.01)], I8=[(8, 0.99), (3, 0.01)],
                       M3=[(5, 0.5), (6, 0.2), (EMPTY, 0.3)]))
    assert got[index("M3")].cls == EMPTY and "T-P3" in got[index("M3")].rules
    assert [got[index(s)].cls for s in ("H8", "I8")] == [7, 8]


def test_reader_consistency_tiles_may_join_through_unseen_squares_t_p3() -> None:
    """A group reached only through squares the picture does not show (a hand, the picture's edge)
    is left alone; so is a sure group no probable reading joins."""
    probs = board(H8=[(7, 0.99), (1, 0.01)], I8=[(8, 0.99), (3, 0.01)],
                  I11=[(5, 0.6), (6, 0.2), (EMPTY, 0.2)])
    unknown = np.zeros(225, bool)
    unknown[[index("I9"), index("I10")]] = True
    got = decide(probs, None, unknown)
    assert got[index("I11")].cls == 5 and not got[index("I11")].rules
    assert decide(probs)[index("I11")].cls == EMPTY  # with I9–I10 in view, I11 is a phantom
    far = decide(board(B2=[(4, 1.0)], H8=[(7, 0.99), (1, 0.01)], I8=[(8, 0.99), (3, 0.01)]))
    assert far[index("B2")].cls == 4 and not far[index("B2")].rules


def test_reader_consistency_hidden_centre_holds_a_tile_once_tiles_are_down_t_p3() -> None:
    """As in frame 18,200,151: glare washes out H8 (its lines lost, so it counts as covered) and the
    nets read it empty, between a sure 6 and a sure 4. The first placement covers H8 (T-P3), so it
    is a tile, and the trio 6 + ? + 4 makes it a 5, flagged; in plain view, or on an empty board,
    an H8 read empty stays empty."""
    probs = board(G8=[(6, 0.99), (5, 0.01)], I8=[(4, 0.99), (1, 0.01)],
                  H8=[(EMPTY, 0.999), (11, 0.0007), (3, 0.0003)])
    covered = np.zeros(225, bool)
    covered[index("H8")] = True
    got = decide(probs, covered)[index("H8")]
    assert got.cls == 5 and "T-P3" in got.rules and got.confidence < 0.6
    assert decide(probs)[index("H8")].cls == EMPTY  # in view: a player's illegal opening, reported
    alone = board(H8=[(EMPTY, 0.999), (11, 0.001)])
    assert all(c.cls == EMPTY for c in decide(alone, covered))


def test_reader_consistency_trio_mended_beyond_the_top_candidates_t_p4() -> None:
    """As in frame 4,200,337: a 3 half under a finger (not flagged covered) read 0 / 6 / 8, in the
    trio 3 + 11 + 1. No top candidate makes 15, so one square may take any value: 3 (flagged low).
    A trio whose squares are all sure (11 + 1 + 6) stays as read, its confidence halved."""
    probs = board(I6=[(0, 0.28), (6, 0.27), (8, 0.24), (3, 0.1), (5, 0.1), (EMPTY, 0.01)],
                  J6=[(11, 0.99), (1, 0.01)], K6=[(1, 0.99), (7, 0.01)])
    got = decide(probs)
    assert [got[index(s)].cls for s in ("I6", "J6", "K6")] == [3, 11, 1]
    assert "T-P4" in got[index("I6")].rules and got[index("I6")].confidence < 0.6
    assert not got[index("J6")].rules and got[index("J6")].confidence > 0.9
    sure = decide(board(I6=[(6, 0.999), (3, 0.001)], J6=[(11, 0.999), (1, 0.001)], K6=[(1, 0.999), (7, 0.001)]))
    assert [sure[index(s)].cls for s in ("I6", "J6", "K6")] == [6, 11, 1]
    assert all(sure[index(s)].confidence < 0.6 for s in ("I6", "J6", "K6"))


def test_reader_consistency_trio_mended_beyond_the_top_candidates_when_more_probable_t_p4() -> None:
    """As in frame 20,000,760: I8–I10 reads 6 (a 3 beside a hand, top candidates 6, 4, 0), 7 (0.91)
    and 6 (a 5 read 6 / 5 / 9): 19 is illegal. The top candidates alone make 15 only as 4 + 2 + 9,
    which changes the sure 7; a 3 beyond I8's top three (3 + 7 + 5) is 12 times as probable."""
    probs = board(I8=[(6, 0.30), (4, 0.18), (0, 0.17), (3, 0.15), (8, 0.1), (1, 0.1)],
                  I9=[(7, 0.91), (2, 0.09)], I10=[(6, 0.46), (5, 0.31), (9, 0.21), (8, 0.02)])
    got = decide(probs)
    assert [got[index(s)].cls for s in ("I8", "I9", "I10")] == [3, 7, 5]
    assert got[index("I9")].rules == [] and got[index("I9")].confidence > 0.9
    assert "T-P4" in got[index("I8")].rules and got[index("I8")].confidence < 0.6


def test_reader_consistency_reread_keeps_the_crossing_run_legal_t_p4() -> None:
    """As in frame 5,800,074: F8–F10 reads 4, 1 and a half-hidden 15 (10 a close second), and
    row 10 reads E10 (a shadow, 40 % empty) 0, F10, G10 0. The column re-read makes F10 a 10;
    re-reading the row then must not make it a 15 again (0 + 15 + 0 = 15 mends the row but
    breaks the column, 4 + 1 + 15 = 20): E10 is read empty and the 10 stays."""
    probs = board(F8=[(4, 0.99), (1, 0.01)], F9=[(1, 0.99), (7, 0.01)],
                  F10=[(15, 0.45), (10, 0.4), (11, 0.15)],
                  E10=[(0, 0.6), (EMPTY, 0.4)], G10=[(0, 0.99), (8, 0.01)])
    got = decide(probs)
    assert [got[index(s)].cls for s in ("F8", "F9", "F10")] == [4, 1, 10]
    assert [got[index(s)].cls for s in ("E10", "G10")] == [EMPTY, 0]
    assert "T-P4" in got[index("F10")].rules and "T-P4" in got[index("E10")].rules
    assert got[index("F8")].rules == [] and got[index("G10")].rules == []


def test_reader_consistency_crossing_run_misread_does_not_block_the_reread_t_p4() -> None:
    """When every legal re-reading of a run breaks a crossing run that is legal as read, the run
    is still re-read on its own (the crossing run may be the misread one, mended in its turn)."""
    probs = board(H6=[(4, 0.99), (1, 0.01)], H7=[(1, 0.99), (7, 0.01)],
                  H8=[(15, 0.5), (10, 0.45), (11, 0.05)],
                  G8=[(0, 0.55), (EMPTY, 0.45)], I8=[(0, 0.99), (8, 0.01)])
    got = decide(probs)
    # column H6–H8 first: 4 + 1 + 15 is illegal, and 10 breaks row 8 (0 + 10 + 0) as read; row 8
    # is then re-read keeping the column: G8 empty
    assert [got[index(s)].cls for s in ("H6", "H7", "H8")] == [4, 1, 10]
    assert got[index("G8")].cls == EMPTY and got[index("I8")].cls == 0
