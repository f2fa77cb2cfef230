"""Why a placement is legal or not for a colour, rule by rule (B-L1, B-L2, B-L3, B-L5, B-L6).

Reason codes and what Pentobi's GTP engine answers for them:
``off_board``, ``not_a_piece`` → ``? invalid move``; ``piece_used`` → ``? piece already played``;
``occupied``, ``own_edge``, ``no_corner_contact``, ``no_start_point``, ``symmetric_start``,
``alternate_contact`` → ``? illegal move``.
"""

from __future__ import annotations

from engine.core.verdict import Reason
from engine.polyform.judgement import Judgement, PieceWords, locate, owner_name

from .pieces import all_pieces
from .position import Position
from .variants import COLOURS

#: Reason codes meaning "not a placement of any piece" (B-L1).
INVALID_CODES = frozenset({"off_board", "not_a_piece"})
#: How messages speak of the pieces.
PIECE_WORDS = PieceWords("triangle", 6, "edge to edge", 22)


def judge_placement(pos: Position, colour: int, names: tuple[str, ...]) -> Judgement:
    """Judge laying ``names`` for ``colour`` (0-based) in ``pos``, ignoring whose turn it is."""
    board = pos.table.board
    cname = COLOURS[colour]
    found = locate(pos, board, names, "B-L1", PIECE_WORDS, f"{board.size}-triangle board")
    if isinstance(found, Judgement):
        return found
    pid, mask = found
    reasons: list[Reason] = []
    piece = all_pieces()[pos.table.pieces[pid]]
    if not pos.unused[colour] >> piece.index & 1:
        size = f"{piece.size} triangle{'s' if piece.size > 1 else ''}"
        reasons.append(Reason("B-L1", "piece_used",
                              f"{cname} has already played its piece {piece.label} ({size})", names))
    taken = mask & pos.occupied
    if taken:
        detail = ", ".join(f"{board.names[c]} by {owner_name(pos, COLOURS, c)}" for c in board.cells_of(taken))
        reasons.append(Reason("B-L1", "occupied", f"already covered: {detail}", board.names_of(taken)))
    if pos.own[colour] == 0:
        reasons.extend(_start_reasons(pos, colour, mask))
    elif mask & pos.own[colour]:
        pass  # laid on its own colour: "occupied" says it all
    else:
        reasons.extend(_contact_reasons(pos, colour, mask))
        if pos.alternate_contact and not reasons:
            reasons.extend(_alternate_reasons(pos, colour, mask, pid))
    return Judgement(pid, tuple(reasons))


def _start_reasons(pos: Position, colour: int, mask: int) -> list[Reason]:
    board = pos.table.board
    cname = COLOURS[colour]
    allowed = pos.allowed_starts(colour)
    if mask & allowed:
        return []
    free = board.start_mask & ~pos.occupied
    partner = pos.partner[colour]
    if mask & free and partner is not None and pos.start_taken[partner] is not None:
        taken = pos.start_taken[partner]
        assert taken is not None
        want = board.names[board.opposite(taken)]
        return [Reason("B-L6", "symmetric_start",
                       f"{cname}'s first piece must cover {want}, opposite {COLOURS[partner]}'s start "
                       f"{board.names[taken]}", (want,))]
    names = board.names_of(allowed) or board.names_of(board.start_mask)
    return [Reason("B-L2", "no_start_point",
                   f"{cname}'s first piece must cover a free starting point ({', '.join(names)})", names)]


def _contact_reasons(pos: Position, colour: int, mask: int) -> list[Reason]:
    board = pos.table.board
    own = pos.own[colour]
    out: list[Reason] = []
    pairs = []
    for c in board.cells_of(mask):
        touching = board.edge_masks[c] & own
        if touching:
            pairs.append((board.names[c], board.names_of(touching)[0]))
    if pairs:
        text = "; ".join(f"{a} shares an edge with your own piece at {b}" for a, b in pairs)
        cells = tuple(dict.fromkeys(n for p in pairs for n in p))
        out.append(Reason("B-L3", "own_edge", f"{text}", cells))
    corner = 0
    for c in board.cells_of(mask):
        corner |= board.corner_masks[c]
    if not corner & own:
        out.append(Reason("B-L3", "no_corner_contact",
                          f"the piece touches no {COLOURS[colour]} piece at a corner",
                          board.names_of(mask)))
    return out


def _alternate_reasons(pos: Position, colour: int, mask: int, pid: int) -> list[Reason]:
    board = pos.table.board
    own = pos.own[colour]
    bad_new = mask & pos.alt_forbidden[colour]
    bad_old = pos.straight[pid] & own
    if not bad_new and not bad_old:
        return []
    if bad_new:
        text = f"{_join(board.names_of(bad_new))} would touch the straight side of your own piece at a corner"
    else:
        text = f"the piece's straight side would touch your own piece at {_join(board.names_of(bad_old))}"
    return [Reason("B-L5", "alternate_contact",
                   f"{text}; with the alternate rule pieces of one colour meet only corner to corner",
                   board.names_of(bad_new | bad_old))]


def _join(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(names)
