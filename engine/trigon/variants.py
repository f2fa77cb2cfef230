"""Variants (B-V1) and header options (B-L5, B-L6): board, colours, who owns which colour."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.core.errors import OptionsError
from engine.core.header import Header

#: Colour names in play order (B-L4); SGF colours 1–4.
COLOURS = ("blue", "yellow", "red", "green")


@dataclass(frozen=True)
class Variant:
    """One way to play (B-V1)."""

    id: str
    side: int
    colours: int
    players: int
    #: seat owning each colour
    owner: tuple[int, ...]
    #: the seats whose scores add up (teams), else ``None``
    teams: tuple[tuple[int, ...], ...] | None
    #: Pentobi's SGF game name
    sgf_name: str
    description: str

    @property
    def colour_names(self) -> tuple[str, ...]:
        return COLOURS[: self.colours]

    def colours_of(self, seat: int) -> tuple[int, ...]:
        return tuple(c for c, s in enumerate(self.owner) if s == seat)


VARIANTS: dict[str, Variant] = {
    "trigon": Variant("trigon", 9, 4, 4, (0, 1, 2, 3), None, "Blokus Trigon", "4 players, one colour each"),
    "trigon_2": Variant("trigon_2", 9, 4, 2, (0, 1, 0, 1), None, "Blokus Trigon Two-Player",
                        "2 players: blue+red against yellow+green"),
    "trigon_3": Variant("trigon_3", 8, 3, 3, (0, 1, 2), None, "Blokus Trigon Three-Player",
                        "3 players, blue, yellow, red on the side-8 board"),
    "teams": Variant("teams", 9, 4, 4, (0, 1, 2, 3), ((0, 2), (1, 3)), "Blokus Trigon",
                     "4 people in two teams: blue+red against yellow+green"),
    "solo": Variant("solo", 9, 4, 1, (0, 0, 0, 0), None, "Blokus Trigon", "one person places all 88 pieces"),
}

#: Variant when the header names none, by number of players.
DEFAULT_VARIANT_BY_PLAYERS = {1: "solo", 2: "trigon_2", 3: "trigon_3", 4: "trigon"}

#: Variants where a player owns two colours that may be asked to start symmetrically (B-L6).
SYMMETRIC_PAIRS: dict[str, tuple[int | None, ...]] = {
    # colour -> the colour whose start it mirrors: red mirrors blue, green mirrors yellow
    "trigon_2": (None, None, 0, 1),
    "teams": (None, None, 0, 1),
}

KNOWN_OPTIONS = ("variant", "alternate_contact", "symmetric_start")


@dataclass(frozen=True)
class Rules:
    """The variant and options a game is played with."""

    variant: Variant
    alternate_contact: bool = False
    symmetric_start: bool = False

    def partner(self) -> tuple[int | None, ...] | None:
        """Per colour, the colour whose starting point it must mirror (B-L6), if the option is on."""
        if not self.symmetric_start:
            return None
        return SYMMETRIC_PAIRS[self.variant.id]

    def options_json(self) -> dict[str, Any]:
        return {"variant": self.variant.id, "alternate_contact": self.alternate_contact,
                "symmetric_start": self.symmetric_start}


def rules_from_options(options: dict[str, Any], players: int) -> Rules:
    """The rules a header's options and number of players name; bad ones raise ``OptionsError``.

    ``variant`` defaults by player count (1 solo, 2 trigon_2, 3 trigon_3, 4 trigon);
    ``symmetric_start`` defaults to on for ``trigon_2`` only (B-L6).
    """
    unknown = sorted(set(options) - set(KNOWN_OPTIONS))
    if unknown:
        raise OptionsError(f"unknown trigon option(s) {', '.join(unknown)}; known: {', '.join(KNOWN_OPTIONS)}")
    vid = options.get("variant", DEFAULT_VARIANT_BY_PLAYERS.get(players, "trigon"))
    if vid not in VARIANTS:
        raise OptionsError(f'"variant" is {vid!r}; expected one of {", ".join(VARIANTS)}')
    variant = VARIANTS[vid]
    if players != variant.players:
        raise OptionsError(f"variant {vid} is played by {variant.players} player(s) ({variant.description}), "
                           f"but the header names {players} (B-V1)")
    alt = options.get("alternate_contact", False)
    if not isinstance(alt, bool):
        raise OptionsError(f'"alternate_contact" must be true or false, not {alt!r}')
    sym = options.get("symmetric_start", vid == "trigon_2")
    if not isinstance(sym, bool):
        raise OptionsError(f'"symmetric_start" must be true or false, not {sym!r}')
    if sym and vid not in SYMMETRIC_PAIRS:
        raise OptionsError(f"symmetric_start needs colours paired blue+red, yellow+green (trigon_2 or teams), "
                           f"not {vid} (B-L6)")
    return Rules(variant=variant, alternate_contact=alt, symmetric_start=sym)


def rules_of(header: Header) -> Rules:
    """The rules of a trigon header (validating players and options)."""
    if header.first_player != 0:
        raise OptionsError("in Blokus Trigon blue moves first and seat 0 plays blue; first_player must be 0 (B-L4)")
    return rules_from_options(header.options, len(header.players))
