"""Why a placement is legal or not for a colour, rule by rule (K-L1, K-L2, K-L3).

Reason codes and what Pentobi's GTP engine answers for them: ``off_board``, ``not_a_piece`` →
``? invalid move``; ``piece_used`` → ``? piece already played``; ``occupied``, ``no_start_point``,
``own_edge``, ``no_corner_contact`` → ``? illegal move``.
"""

from __future__ import annotations

from engine.core.verdict import Reason
from engine.polyform.judgement import Judgement, PieceWords, locate, owner_name
from engine.polyform.position import Position

from .board import SquareBoard
from .pieces import all_pieces

#: Reason codes meaning "not a placement of any piece" (K-L1).
INVALID_CODES = frozenset({"off_board", "not_a_piece"})
#: How messages speak of the pieces.
PIECE_WORDS = PieceWords("square", 5, "side to side", 21)


def judge_placement(pos: Position, board: SquareBoard, colours: tuple[str, ...], colour: int,
                    names: tuple[str, ...]) -> Judgement:
    """Judge laying ``names`` for ``colour`` (0-based) in ``pos``, ignoring whose turn it is."""
    cname = colours[colour]
    found = locate(pos, board, names, "K-L1", PIECE_WORDS, f"{board.side} × {board.side} board")
    if isinstance(found, Judgement):
        return found
    pid, mask = found
    if pos.is_legal(colour, pid):
        return Judgement(pid, ())
    reasons: list[Reason] = []
    piece = all_pieces()[pos.table.pieces[pid]]
    if not pos.unused[colour] >> piece.index & 1:
        size = f"{piece.size} square{'s' if piece.size > 1 else ''}"
        reasons.append(Reason("K-L1", "piece_used", f"{cname} has already played its piece {piece.label} ({size})",
                              names))
    taken = mask & pos.occupied
    if taken:
        detail = ", ".join(f"{board.names[c]} by {owner_name(pos, colours, c)}" for c in board.cells_of(taken))
        reasons.append(Reason("K-L1", "occupied", f"already covered: {detail}", board.names_of(taken)))
    if pos.own[colour] == 0:
        if not mask & pos.allowed_starts(colour):
            start = board.names_of(pos.starts[colour])
            reasons.append(Reason("K-L2", "no_start_point",
                                  f"{cname}'s first piece must cover its starting square {', '.join(start)}", start))
    elif not mask & pos.own[colour]:
        reasons.extend(_contact_reasons(board, cname, pos.own[colour], mask))
    return Judgement(pid, tuple(reasons))


def _contact_reasons(board: SquareBoard, cname: str, own: int, mask: int) -> list[Reason]:
    """K-L3: no side shared with the colour's own pieces, and a corner touching one of them."""
    out: list[Reason] = []
    pairs = []
    corner = 0
    for c in board.cells_of(mask):
        touching = board.edge_masks[c] & own
        if touching:
            pairs.append((board.names[c], board.names_of(touching)[0]))
        corner |= board.corner_masks[c]
    if pairs:
        text = "; ".join(f"{a} shares a side with your own piece at {b}" for a, b in pairs)
        out.append(Reason("K-L3", "own_edge", text, tuple(dict.fromkeys(n for p in pairs for n in p))))
    if not corner & own:
        out.append(Reason("K-L3", "no_corner_contact", f"the piece touches no {cname} piece at a corner",
                          board.names_of(mask)))
    return out
