"""Variants of Blokus Classic and Duo (K-V1): board, colours, starting squares, who plays what."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.errors import OptionsError
from engine.core.header import Header

#: Colour names in play order (K-L4); SGF colours 1–4 (Duo: B and W).
CLASSIC_COLOURS = ("blue", "yellow", "red", "green")
DUO_COLOURS = ("purple", "orange")


@dataclass(frozen=True)
class Variant:
    """One way to play (K-V1)."""

    id: str
    game: str
    side: int
    colour_names: tuple[str, ...]
    #: the starting square of each colour (K-L2)
    starts: tuple[str, ...]
    players: int
    #: seat owning each colour; ``None`` for a colour the players take turns with (classic_3 green)
    owner: tuple[int | None, ...]
    #: colours whose score counts for nobody (classic_3 green)
    unscored: tuple[int, ...]
    #: Pentobi's SGF game name
    sgf_name: str
    description: str

    @property
    def colours(self) -> int:
        return len(self.colour_names)

    def colours_of(self, seat: int) -> tuple[int, ...]:
        """The colours a seat always plays (a shared colour is nobody's)."""
        return tuple(c for c, s in enumerate(self.owner) if s == seat)


_CLASSIC_STARTS = ("a20", "t20", "t1", "a1")

VARIANTS: dict[str, Variant] = {
    "classic": Variant("classic", "blokus", 20, CLASSIC_COLOURS, _CLASSIC_STARTS, 4, (0, 1, 2, 3), (), "Blokus",
                       "4 players, one colour each"),
    "classic_2": Variant("classic_2", "blokus", 20, CLASSIC_COLOURS, _CLASSIC_STARTS, 2, (0, 1, 0, 1), (),
                         "Blokus Two-Player", "2 players: blue+red against yellow+green"),
    "classic_3": Variant("classic_3", "blokus", 20, CLASSIC_COLOURS, _CLASSIC_STARTS, 3, (0, 1, 2, None), (3,),
                         "Blokus Three-Player",
                         "3 players with blue, yellow, red; green is placed by each player in turn and not scored"),
    "duo": Variant("duo", "blokus_duo", 14, DUO_COLOURS, ("e10", "j5"), 2, (0, 1), (), "Blokus Duo",
                   "2 players on the 14 × 14 board"),
}

#: Variant when the header names none, per game and number of players.
DEFAULT_VARIANT = {"blokus": {2: "classic_2", 3: "classic_3", 4: "classic"}, "blokus_duo": {2: "duo"}}

KNOWN_OPTIONS = ("variant",)


def variant_from_options(game: str, options: dict[str, Any], players: int) -> Variant:
    """The variant a header's options and number of players name; bad ones raise ``OptionsError``."""
    unknown = sorted(set(options) - set(KNOWN_OPTIONS))
    if unknown:
        raise OptionsError(f"unknown {game} option(s) {', '.join(unknown)}; known: {', '.join(KNOWN_OPTIONS)}")
    own = {k: v for k, v in VARIANTS.items() if v.game == game}
    vid = options.get("variant", DEFAULT_VARIANT[game].get(players))
    if vid is None:
        counts = ", ".join(str(v.players) for v in own.values())
        raise OptionsError(f"{game} is played by {counts} players, not {players} (K-V1)")
    if vid not in own:
        raise OptionsError(f'"variant" is {vid!r}; {game} has {", ".join(own)}')
    variant = own[vid]
    if players != variant.players:
        raise OptionsError(f"variant {vid} is played by {variant.players} players ({variant.description}), "
                           f"but the header names {players} (K-V1)")
    return variant


def variant_of(header: Header) -> Variant:
    """The variant of a blokus or blokus_duo header (validating players and options)."""
    if header.first_player != 0:
        raise OptionsError(f"in {header.game} the first colour moves first and seat 0 plays it; "
                           f"first_player must be 0 (K-L4)")
    return variant_from_options(header.game, header.options, len(header.players))
