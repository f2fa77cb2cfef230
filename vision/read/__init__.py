"""Every game's one-picture reader behind one interface, found by game id (as the engine's registry).

``reader_for("triolet").read(image, profile)`` gives the game's reading, whose ``to_json()`` is
INTERFACES §3. The CLI (``companion read``), the tracker's whole-picture reads and the server all
ask here; a new game's reader registers itself with :func:`register_reader`.

A picture that holds no board (or no tile) raises :class:`~vision.locate.BoardNotLocatedError`;
bad input raises ``ValueError`` (a profile that does not fit: :class:`~calibration.profile.ProfileError`);
a reader whose model cannot be loaded raises :class:`ReaderUnavailableError`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from calibration.profile import Profile, ProfileError, TileReference

Image = NDArray[np.uint8]


class ReaderUnavailableError(RuntimeError):
    """The reader cannot run here (its model file is missing or unreadable); the message says which."""


class Reading(Protocol):
    """What a reader saw in one picture."""

    def to_json(self) -> dict[str, Any]:
        """The reading as INTERFACES §3 prints it."""
        ...


class Reader(Protocol):
    """A game's one-picture reader."""

    game: str

    def read(self, image: Image, calibration: Profile | None = None, *, debug: Path | None = None) -> Reading:
        """Read one BGR picture; ``debug`` names a folder for the reader's own pictures of its work."""
        ...


_READERS: dict[str, Callable[[str], Reader]] = {}


def register_reader(*games: str) -> Callable[[Callable[[str], Reader]], Callable[[str], Reader]]:
    """Decorator: ``make(variant)`` builds the reader of each of ``games``."""

    def add(make: Callable[[str], Reader]) -> Callable[[str], Reader]:
        for game in games:
            _READERS[game] = make
        return make
    return add


def reader_games() -> tuple[str, ...]:
    """The games that have a reader, in the order they were registered."""
    return tuple(_READERS)


def reader_for(game: str, variant: str = "") -> Reader:
    """The reader of ``game`` (``variant``: the board of a game that has several, e.g. Trigon's B-V1)."""
    try:
        make = _READERS[game]
    except KeyError:
        raise ValueError(f"no picture reader for {game!r}; games with one: {', '.join(_READERS)}") from None
    return make(variant or game)


class TileLessonError(ValueError):
    """A calibration picture that cannot teach the reader the edition's tiles; the message says why
    (no tiles seen, the wrong number of them, rows that cannot be put in order, ...)."""


class TileLearner(Protocol):
    """Learns an edition's tiles (typeface, pips, colours) from one picture (``calibrate tiles``)."""

    game: str

    def learn(self, image: Image, calibration: Profile | None = None) -> TileReference:
        """What ``image`` teaches this game's reader; ``TileLessonError`` when it cannot teach."""
        ...


_TILE_LEARNERS: dict[str, Callable[[str], TileLearner]] = {}


def register_tile_learner(*games: str) -> Callable[[Callable[[str], TileLearner]], Callable[[str], TileLearner]]:
    """Decorator: ``make(game)`` builds the tile learner of each of ``games``."""

    def add(make: Callable[[str], TileLearner]) -> Callable[[str], TileLearner]:
        for game in games:
            _TILE_LEARNERS[game] = make
        return make
    return add


def tile_learner_games() -> tuple[str, ...]:
    """The games whose edition ``calibrate tiles`` can teach, in the order they were registered."""
    return tuple(_TILE_LEARNERS)


def tile_learner_for(game: str) -> TileLearner:
    """The tile learner of ``game``; ``ValueError`` naming the games that have one."""
    try:
        make = _TILE_LEARNERS[game]
    except KeyError:
        have = ", ".join(_TILE_LEARNERS) or "none yet"
        raise ValueError(f"no tile calibration for {game!r}; games with one: {have}") from None
    return make(game)


def use_profile_tiles(calibration: Profile | None, game: str) -> bool:
    """Make every read of ``game`` in this process (the tracker's included) compare tiles with the
    edition the profile's tiles section holds (``calibrate tiles``); ``ProfileError`` when that
    section is another game's or cannot be used. Returns whether an edition is now in use (so far
    the Triolet reader's; other games' readers take the profile themselves)."""
    if game != "triolet":
        return False
    from .triolet.edition import from_reference, use_edition

    tiles = calibration.tiles_for(game) if calibration is not None else None
    use_edition(from_reference(tiles) if tiles is not None else None)
    return tiles is not None


def _profile_dict(calibration: Profile | None) -> dict[str, Any] | None:
    return None if calibration is None else calibration.to_json()


class TrioletReader:
    """The Triolet board reader (``vision.read.triolet``): located board, per-square nets, the rules' checks."""

    game = "triolet"

    def read(self, image: Image, calibration: Profile | None = None, *, debug: Path | None = None) -> Reading:
        from .triolet.classifier import ModelMissingError
        from .triolet.cnn import CnnMissingError
        from .triolet.reader import read_triolet, write_debug

        edition = None
        if calibration is not None:
            tiles = calibration.tiles_for("triolet")
            if calibration.board is None and tiles is None:
                raise ProfileError("the profile holds no board corners and no tiles (run: companion calibrate "
                                   "board, or companion calibrate tiles --game triolet)")
            if tiles is not None:
                from .triolet.edition import from_reference

                edition = from_reference(tiles)
        try:
            reading = read_triolet(image, calibration, keep_images=debug is not None, edition=edition)
        except (ModelMissingError, CnnMissingError) as exc:
            raise ReaderUnavailableError(str(exc)) from None
        if debug is not None:
            write_debug(reading, debug)
        return reading


class TrigonReader:
    """The Blokus Trigon reader (``vision.read.trigon``): the plate's hexagon, its lattice, a colour net."""

    game = "trigon"

    def __init__(self, variant: str = "trigon") -> None:
        self.variant = variant

    def read(self, image: Image, calibration: Profile | None = None, *, debug: Path | None = None) -> Reading:
        from .trigon.reader import read_trigon

        return read_trigon(image, _profile_dict(calibration), variant=self.variant, debug_dir=debug)


class TrianglesReader:
    """The triangle-tile reader (``vision.read.tritiles``) for Triominos and Trio Domino."""

    def __init__(self, game: str) -> None:
        self.game = game

    def read(self, image: Image, calibration: Profile | None = None, *, debug: Path | None = None) -> Reading:
        from .tritiles.reader import read_triangles

        return read_triangles(image, self.game, _profile_dict(calibration), debug_dir=debug)


class BlokusReader:
    """The square Blokus reader (``vision.read.blokus``): the board in a whole photo, its lattice, colours."""

    def __init__(self, game: str) -> None:
        self.game = game

    def read(self, image: Image, calibration: Profile | None = None, *, debug: Path | None = None) -> Reading:
        from .blokus.reader import read_blokus

        return read_blokus(image, _profile_dict(calibration), game=self.game, debug_dir=debug)


register_reader("triolet")(lambda _variant: TrioletReader())
register_reader("trigon")(lambda variant: TrigonReader("trigon" if variant == "trigon" else variant))
register_reader("triominos")(lambda _variant: TrianglesReader("triominos"))
register_reader("trio_domino")(lambda _variant: TrianglesReader("trio_domino"))
register_reader("blokus")(lambda _variant: BlokusReader("blokus"))
register_reader("blokus_duo")(lambda _variant: BlokusReader("blokus_duo"))


def _triolet_tile_learner(_game: str) -> TileLearner:
    from .triolet.tile_lesson import TrioletTileLearner

    return TrioletTileLearner()


register_tile_learner("triolet")(_triolet_tile_learner)


def _triangle_tile_learner(game: str) -> TileLearner:
    from .tritiles.tile_lesson import TriangleTileLearner

    return TriangleTileLearner(game)


register_tile_learner("triominos", "trio_domino")(_triangle_tile_learner)
