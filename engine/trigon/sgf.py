"""Blokus SGF (``.blksgf``) as Pentobi writes it: reading into a record and writing one.

``GM[Blokus Trigon]`` (4 colours), ``GM[Blokus Trigon Two-Player]`` (players ``PB``/``PW``),
``GM[Blokus Trigon Three-Player]`` (side-8 board); moves ``1[q15,r15,…]`` … ``4[…]`` for blue,
yellow, red, green, in play order, on the main line. Options Pentobi's format cannot express
(the teams and solo variants, B-L5, B-L6) travel in a private ``TCOPTIONS`` property holding the
header's options as JSON; without it a file means Pentobi's rules (no B-L5, no B-L6).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from engine.core.errors import EngineError
from engine.core.events import Event
from engine.core.header import Header
from engine.core.record import Record
from engine.polyform.sgf_record import load_sgf, player_keys, record_of_sgf, root_properties, sgf_of_events
from engine.polyform.sgf_text import SgfNode
from engine.polyform.sgf_text import escape as _escape

from .events import READER, TrigonPass, TrigonPlace
from .variants import COLOURS, VARIANTS, Rules, rules_from_options

#: The private property carrying options Pentobi's format cannot express.
OPTIONS_PROPERTY = "TCOPTIONS"
#: Variant of each Pentobi game name.
VARIANT_OF_GAME_NAME = {"Blokus Trigon": "trigon", "Blokus Trigon Two-Player": "trigon_2",
                        "Blokus Trigon Three-Player": "trigon_3"}
_SETUP = ("AB", "AW", "AE", "A1", "A2", "A3", "A4")


def loads(text: str, source: str = "SGF") -> Record:
    """The record held by Blokus SGF text; bad input raises ``RecordError`` naming the line."""
    return record_of_sgf(text, source, _header, _node_events)


def load(path: str | Path) -> Record:
    """Read a ``.blksgf`` file (the only I/O here; parsing is :func:`loads`)."""
    return load_sgf(path, loads)


def _header(root: SgfNode) -> tuple[Header, Rules]:
    game = (root.props.get("GM") or [""])[0]
    if game not in VARIANT_OF_GAME_NAME:
        known = ", ".join(VARIANT_OF_GAME_NAME)
        raise EngineError(f"GM[{game}] is not a Blokus Trigon game; expected one of {known}")
    if OPTIONS_PROPERTY in root.props:
        try:
            options = json.loads(root.props[OPTIONS_PROPERTY][0])
        except json.JSONDecodeError as exc:
            raise EngineError(f"{OPTIONS_PROPERTY} is not JSON ({exc.msg})") from None
        if not isinstance(options, dict):
            raise EngineError(f"{OPTIONS_PROPERTY} must hold a JSON object")
        variant = VARIANTS.get(str(options.get("variant")))
        if variant is None or variant.sgf_name != game:
            raise EngineError(f"{OPTIONS_PROPERTY} names variant {options.get('variant')!r}, not one of GM[{game}]")
    else:  # Pentobi's own rules
        options = {"variant": VARIANT_OF_GAME_NAME[game], "alternate_contact": False}
        if options["variant"] == "trigon_2":
            options["symmetric_start"] = False
        variant = VARIANTS[str(options["variant"])]
    players = _player_names(root, variant.players)
    rules = rules_from_options(options, len(players))
    return Header(game="trigon", players=tuple(players), options=options), rules


def _player_names(root: SgfNode, count: int) -> list[str]:
    keys = player_keys(count)
    defaults = {1: ["Solo"], 2: ["Blue and red", "Yellow and green"]}.get(
        count, [c.capitalize() for c in COLOURS[:count]])
    return [(root.props.get(k) or [defaults[i]])[0] or defaults[i] for i, k in enumerate(keys)]


def _node_events(node: SgfNode, rules: Rules) -> list[Event]:
    setup = [k for k in _SETUP if k in node.props]
    if setup:
        raise EngineError(f"setup properties ({', '.join(setup)}) are not supported; only moves 1[…]–4[…]")
    if "B" in node.props or "W" in node.props:
        raise EngineError("Blokus Trigon moves are 1[…]–4[…] (one per colour), not B[…]/W[…]")
    out: list[Event] = []
    names = rules.variant.colour_names
    for key, values in node.props.items():
        if not key.isdigit():
            continue
        number = int(key)
        if not 1 <= number <= len(names):
            raise EngineError(f"move {key}[…]: {rules.variant.id} has colours 1–{len(names)}")
        colour = names[number - 1]
        seat = rules.variant.owner[number - 1]
        out.extend(READER.sgf_moves(values, seat, colour))
    return out


# -- writing ---------------------------------------------------------------------------------------
def dumps(header: Header, events: Iterable[Event]) -> str:
    """Blokus SGF text of a trigon game: root properties, then one node per placed piece.

    Passes are left out (Pentobi records none: a colour that cannot move is skipped).
    """
    rules = rules_from_options(header.options, len(header.players))
    variant = rules.variant
    root = root_properties(variant.sgf_name, header.players)
    pentobi = {"variant": VARIANT_OF_GAME_NAME.get(variant.sgf_name), "alternate_contact": False,
               "symmetric_start": False}
    if rules.options_json() != pentobi:
        root.append(f"{OPTIONS_PROPERTY}[{_escape(json.dumps(rules.options_json(), sort_keys=True))}]")
    return sgf_of_events(root, events, TrigonPlace, TrigonPass,
                         lambda colour: str(variant.colour_names.index(colour) + 1))


def options_of(header: Header) -> dict[str, Any]:
    """The full options of a trigon header (variant and both rule options spelled out)."""
    return rules_from_options(header.options, len(header.players)).options_json()
