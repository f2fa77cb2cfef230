"""Triolet (game id ``triolet``): the 15×15 number-tile game of RULES.md T-*.

Where each idea lives:

- ``board``: square names A1–O15 (T-B1), premium squares (T-B2), neighbours and lines;
- ``tiles``: the tile set (T-B3) and bag arithmetic (T-B4);
- ``events``: the ``place`` event and the record-line parser (INTERFACES §1);
- ``runs``: maximal runs through placed tiles (T-P4, T-S1);
- ``rules``: placement legality T-P1–T-P7 as player-readable reasons;
- ``scoring``: pairs, trios, premium squares, the Triolet bonus (T-S1–T-S6);
- ``state``: :class:`TrioletState` – turns, replays, exchange/pass, rack sizes, the end, reveals;
- ``wilds``: which values a wild read without a value could have been declared as;
- ``rack`` and ``generator``: ``--rack 3,5,W`` and every legal placement with its score;
- ``selfplay``: random legal games from a real shuffled bag (property tests, benchmark).

Importing this package registers :class:`TrioletState` with the engine registry.
"""

from .events import Place, PlacedTile, parse_event, place
from .generator import generate
from .rack import parse_rack
from .state import TrioletState
from .wilds import wild_candidates

__all__ = ["Place", "PlacedTile", "TrioletState", "generate", "parse_event", "parse_rack", "place",
           "wild_candidates"]
