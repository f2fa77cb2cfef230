"""Blokus SGF (``.blksgf``) of Blokus Classic and Duo as Pentobi writes it: reading and writing.

``GM[Blokus]`` (4 players, ``P1``–``P4``), ``GM[Blokus Two-Player]`` (``PB``/``PW``),
``GM[Blokus Three-Player]`` (``P1``–``P3``): moves ``1[a20,b20,…]`` … ``4[…]`` for blue, yellow,
red, green. ``GM[Blokus Duo]`` (``PB``/``PW``): moves ``B[…]`` (purple) and ``W[…]`` (orange).
Moves are read from the main line in order; passes are not written (a colour that cannot move is
skipped by the rules, K-L4).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from engine.core.errors import EngineError
from engine.core.events import Event
from engine.core.header import Header
from engine.core.record import Record
from engine.polyform.sgf_record import load_sgf, record_of_sgf, root_properties, sgf_of_events
from engine.polyform.sgf_record import player_keys as sgf_player_keys
from engine.polyform.sgf_text import SgfNode

from .events import READER, BlokusPass, BlokusPlace
from .variants import VARIANTS, Variant, variant_from_options

#: Variant of each Pentobi game name.
VARIANT_OF_GAME_NAME = {v.sgf_name: v.id for v in VARIANTS.values()}
_SETUP = ("AB", "AW", "AE", "A1", "A2", "A3", "A4")


def move_keys(variant: Variant) -> tuple[str, ...]:
    """The SGF move property of each colour: ``B``/``W`` with two colours, else ``1``–``4``."""
    return ("B", "W") if variant.colours == 2 else tuple(str(i + 1) for i in range(variant.colours))


def player_keys(variant: Variant) -> tuple[str, ...]:
    """The SGF properties naming the players: ``PB``/``PW`` for two players, else ``P1``…"""
    return sgf_player_keys(variant.players)


def loads(text: str, source: str = "SGF") -> Record:
    """The record held by Blokus SGF text; bad input raises ``RecordError`` naming the line."""
    return record_of_sgf(text, source, _header, _node_events)


def load(path: str | Path) -> Record:
    """Read a ``.blksgf`` file (the only I/O here; parsing is :func:`loads`)."""
    return load_sgf(path, loads)


def _header(root: SgfNode) -> tuple[Header, Variant]:
    game = (root.props.get("GM") or [""])[0].strip()
    if game not in VARIANT_OF_GAME_NAME:
        raise EngineError(f"GM[{game}] is not a Blokus Classic or Duo game; expected one of "
                          f"{', '.join(VARIANT_OF_GAME_NAME)}")
    variant = VARIANTS[VARIANT_OF_GAME_NAME[game]]
    defaults = [c.capitalize() for c in variant.colour_names]
    if variant.players == 2 and variant.colours == 4:
        defaults = ["Blue and red", "Yellow and green"]
    players = [(root.props.get(k) or [defaults[i]])[0] or defaults[i] for i, k in enumerate(player_keys(variant))]
    options = {"variant": variant.id}
    variant_from_options(variant.game, options, len(players))
    return Header(game=variant.game, players=tuple(players), options=options), variant


def _node_events(node: SgfNode, variant: Variant) -> list[Event]:
    setup = [k for k in _SETUP if k in node.props]
    if setup:
        raise EngineError(f"setup properties ({', '.join(setup)}) are not supported; only moves")
    keys = move_keys(variant)
    wrong = sorted(k for k in node.props if (k.isdigit() or k in ("B", "W")) and k not in keys)
    if wrong:
        raise EngineError(f"move {wrong[0]}[…]: {variant.sgf_name} moves are {', '.join(k + '[…]' for k in keys)}")
    out: list[Event] = []
    for key, values in node.props.items():
        if key not in keys:
            continue
        c = keys.index(key)
        colour = variant.colour_names[c]
        seat = variant.owner[c]
        out.extend(READER.sgf_moves(values, seat, colour))
    return out


def dumps(header: Header, events: Iterable[Event]) -> str:
    """Blokus SGF text of a blokus or blokus_duo game: root properties, then one node per placed piece."""
    variant = variant_from_options(header.game, header.options, len(header.players))
    keys = move_keys(variant)
    return sgf_of_events(root_properties(variant.sgf_name, header.players), events, BlokusPlace, BlokusPass,
                         lambda colour: keys[variant.colour_names.index(colour)])
