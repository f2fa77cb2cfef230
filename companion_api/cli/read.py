"""``companion read --game G IMAGE`` — read one picture (INTERFACES §3).

Exit codes: 0 read, 2 unreadable/missing file or bad option (one line on stderr), 3 no board.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from vision.read import reader_games

from .common import EXIT_NO_BOARD, CliError, emit, existing_file


def register(sub: Any) -> None:
    p = sub.add_parser(
        "read",
        help="read one picture of a game: board corners and what lies on it (JSON)",
        description="Prints one JSON object: the board's corners in the picture and the occupied "
        "squares with their values and confidence (INTERFACES §3). Exit 3 if no board is visible.",
    )
    p.add_argument("--game", required=True, choices=reader_games(), help="which game the picture shows")
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


def load_calibration(path: str | None) -> Any:
    """The profile named by ``--calibration`` (``None`` without one), or a ``CliError`` naming the problem."""
    if not path:
        return None
    from calibration.profile import ProfileError, load_profile

    existing_file(path)
    try:
        return load_profile(Path(path))
    except ProfileError as exc:  # names its file
        raise CliError(str(exc)) from None
    except (ValueError, OSError) as exc:
        raise CliError(f"{path}: {exc}") from None


def run(args: argparse.Namespace) -> int:
    from calibration.profile import ProfileError
    from vision.locate import BoardNotLocatedError
    from vision.read import ReaderUnavailableError, reader_for

    image = load_image(args.image)
    debug = debug_folder(args.debug)
    calibration = load_calibration(args.calibration)
    reader = reader_for(args.game)
    try:
        reading = reader.read(image, calibration, debug=debug)
    except BoardNotLocatedError as exc:
        raise CliError(f"{args.image}: {exc}", EXIT_NO_BOARD) from None
    except ReaderUnavailableError as exc:
        raise CliError(str(exc)) from None
    except ProfileError as exc:  # a profile that does not fit this picture (or this game)
        raise CliError(f"{args.calibration}: {exc}") from None
    except ValueError as exc:
        raise CliError(f"{args.image}: {exc}") from None
    emit(reading.to_json())
    return 0
