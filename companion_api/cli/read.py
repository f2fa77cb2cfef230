"""``companion read --game G IMAGE`` — read one picture (INTERFACES §3).

Exit codes: 0 read, 2 unreadable/missing file or bad option (one line on stderr), 3 no board.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import EXIT_NO_BOARD, CliError, emit, existing_file

GAMES = ("triolet", "trigon", "triominos", "trio_domino", "blokus", "blokus_duo")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "read",
        help="read one picture of a game: board corners and what lies on it (JSON)",
        description="Prints one JSON object: the board's corners in the picture and the occupied "
        "squares with their values and confidence (INTERFACES §3). Exit 3 if no board is visible.",
    )
    p.add_argument("--game", required=True, choices=GAMES, help="which game the picture shows")
    p.add_argument("image", help="the picture (PNG, JPEG, …)")
    p.add_argument("--calibration", metavar="PROFILE.json",
                   help="use the stored board corners and camera intrinsics (from companion calibrate)")
    p.add_argument("--debug", metavar="DIR", help="write the rectified board and per-square crops with readings")
    p.set_defaults(func=run)


def load_image(path: str) -> Any:
    """The picture as BGR, or a ``CliError`` (exit 2) naming the problem."""
    from vision.sources import SourceError, read_image_file

    try:
        return read_image_file(existing_file(path))
    except SourceError as exc:
        raise CliError(str(exc)) from None


def debug_folder(path: str | None) -> Path | None:
    """``--debug DIR`` made ready to write into (created if missing), or a ``CliError`` before any
    work is done."""
    if not path:
        return None
    d = Path(path)
    if d.exists() and not d.is_dir():
        raise CliError(f"--debug {path}: is a file, expected a folder")
    try:
        d.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise CliError(f"--debug {path}: cannot create the folder ({exc.strerror or exc})") from None
    return d


#: Readers of the other games: module and its ``read(image, calibration_dict, **opts)`` options
#: (docs/READERS_OTHER.md).
OTHER_READERS = {"trigon": ("vision.trigon.reader", {}), "triominos": ("vision.tritiles.reader", {"game": "triominos"}),
                 "trio_domino": ("vision.tritiles.reader", {"game": "trio_domino"}),
                 "blokus": ("vision.blokus.reader", {"game": "blokus"}),
                 "blokus_duo": ("vision.blokus.reader", {"game": "blokus_duo"})}


def run_other(args: argparse.Namespace, image: Any) -> int:
    """``read`` for Trigon, Blokus, Triominos and Trio Domino (their readers take the profile as a dict)."""
    import importlib
    import json

    from vision.locate import BoardNotLocatedError

    module_name, opts = OTHER_READERS[args.game]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError:
        raise CliError(f"reading {args.game} pictures is not available yet") from None
    calibration = None
    if args.calibration:
        path = existing_file(args.calibration)
        from calibration.profile import ProfileError, read_profile_text

        try:
            calibration = json.loads(read_profile_text(path))
        except ProfileError as exc:  # names its file
            raise CliError(str(exc)) from None
        except ValueError as exc:
            raise CliError(f"{args.calibration}: not a readable profile ({exc})") from None
        if not isinstance(calibration, dict):
            raise CliError(f"{args.calibration}: a profile is a JSON object")
    try:
        reading = module.read(image, calibration, debug=args.debug, **opts)
    except BoardNotLocatedError as exc:
        raise CliError(f"{args.image}: {exc}", EXIT_NO_BOARD) from None
    except ValueError as exc:
        raise CliError(f"{args.image}: {exc}") from None
    emit(reading.to_json())
    return 0


def run(args: argparse.Namespace) -> int:
    image = load_image(args.image)
    debug_folder(args.debug)
    if args.game != "triolet":
        return run_other(args, image)
    from calibration.profile import ProfileError, load_profile

    calibration = None
    if args.calibration:
        existing_file(args.calibration)
        try:
            calibration = load_profile(Path(args.calibration))
        except ProfileError as exc:  # names its file
            raise CliError(str(exc)) from None
        except (ValueError, OSError) as exc:
            raise CliError(f"{args.calibration}: {exc}") from None
        if calibration.board is None:
            raise CliError(f"{args.calibration}: the profile holds no board corners "
                           "(run: companion calibrate board)")
    from vision.locate import BoardNotLocatedError
    from vision.triolet.classifier import ModelMissingError
    from vision.triolet.cnn import CnnMissingError
    from vision.triolet.reader import read_triolet, write_debug

    try:
        reading = read_triolet(image, calibration, keep_images=bool(args.debug))
    except BoardNotLocatedError as exc:
        raise CliError(f"{args.image}: {exc}", EXIT_NO_BOARD) from None
    except (ModelMissingError, CnnMissingError) as exc:
        raise CliError(str(exc)) from None
    except ProfileError as exc:  # a profile that does not fit this picture (its camera's image size)
        raise CliError(f"{args.calibration}: {exc}") from None
    if args.debug:
        write_debug(reading, args.debug)
    emit(reading.to_json())
    return 0
