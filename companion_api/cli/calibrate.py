"""``companion calibrate`` — the ChArUco target, camera intrinsics, board corners and colours, an
edition's tiles (INTERFACES §4b)."""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from calibration.board_colours import colour_warnings, sample_board_colours
from calibration.board_geometry import BOARD_GAMES, CornersError, order_corners
from calibration.camera import CalibrationError, CalibrationOptions, Rejection, calibrate_views
from calibration.profile import GAMES, TILE_GAMES, Profile, ProfileError, load_profile, save_profile
from calibration.target import DEFAULT_TARGET, target_image
from calibration.undistort import Undistorter
from calibration.views import CharucoView, detect_charuco

from .common import EXIT_NO_BOARD, CliError, emit, existing_file, missing_subcommand, writable_file

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


def register(sub: Any) -> None:
    p = sub.add_parser(
        "calibrate",
        help="calibrate the camera (ChArUco target) and the board (corners, colours)",
        description="Print the ChArUco target, compute camera intrinsics from photos of it, "
        "or store a board's corners and colour references in a profile.",
    )
    csub = p.add_subparsers(dest="calibrate_command", metavar="WHAT", parser_class=type(p))

    t = csub.add_parser("board-image", help="write the default ChArUco target (7×5, DICT_5X5_100) to print",
                        description="Writes the ChArUco target: 7 × 5 squares, DICT_5X5_100, "
                        "marker side 0.7 × square side, with a white margin.")
    t.add_argument("--out", required=True, help="image file to write (e.g. charuco.png)")
    t.add_argument("--px-per-square", type=int, default=100, help="pixels per square (default 100)")
    t.set_defaults(func=run_board_image)

    c = csub.add_parser("camera", help="camera intrinsics from photos of the target",
                        description="Finds the target in every photo of DIR, drops blurred, duplicate and "
                        "unusable views, calibrates, prints the result and stores it in the profile "
                        "(keeping a board section already there).")
    c.add_argument("--images", required=True, metavar="DIR", help="folder of photos of the printed target")
    c.add_argument("--square-mm", type=float, default=30.0, help="printed square side in mm (default 30)")
    c.add_argument("--out", required=True, metavar="PROFILE.json", help="profile to write or update")
    c.add_argument("--max-blur-px", type=float, default=CalibrationOptions.max_blur_px,
                   help=f"reject photos whose edges are blurred more than this (default "
                   f"{CalibrationOptions.max_blur_px} px)")
    c.add_argument("--min-corners", type=int, default=CalibrationOptions.min_corners,
                   help=f"reject photos with fewer target corners (default {CalibrationOptions.min_corners})")
    c.set_defaults(func=run_camera)

    b = csub.add_parser("board", help="store the board's corners and colour references in a profile",
                        description="Locates the board (or takes --corners) and stores its corners and "
                        "colour references in the profile (keeping a camera section already there, "
                        "which is then used to undo lens distortion).")
    b.add_argument("image", metavar="IMAGE", help="a picture of the empty board, from the playing camera")
    b.add_argument("--game", required=True, choices=GAMES, help="game id")
    b.add_argument("--out", required=True, metavar="PROFILE.json", help="profile to write or update")
    b.add_argument("--corners", metavar="x,y;x,y;x,y;x,y",
                   help="4 corners in image pixels, any order (stored clockwise from the one nearest "
                   "the image's top-left): triolet, the playing area's corners; trigon, the two ends "
                   "of the hexagon's top side and of its bottom side")
    b.set_defaults(func=run_board)

    tl = csub.add_parser("tiles", help="teach the reader an edition's tiles from one picture of them",
                         description="Reads one picture of the edition's tiles laid out by the players "
                         "and stores what it teaches the reader (typeface, pips, colours) in the profile "
                         "(keeping its camera and board sections), which read, replay and serve take with "
                         "--calibration. Triolet: one tile of each value 0-15 and a wild, in value order, "
                         "row by row (any rows, reading order as the camera sees them). Triominos / Trio "
                         "Domino: any tiles, face up.")
    tl.add_argument("image", metavar="IMAGE", help="the picture of the laid-out tiles")
    tl.add_argument("--game", required=True, choices=TILE_GAMES, help="game id")
    tl.add_argument("--out", required=True, metavar="PROFILE.json", help="profile to write or update")
    tl.set_defaults(func=run_tiles)

    def _no_what(_args: argparse.Namespace) -> int:
        raise missing_subcommand(p, "a target")

    p.set_defaults(func=_no_what)


def _progress(message: str) -> None:
    sys.stderr.write(f"calibrate: {message}\n")
    sys.stderr.flush()


def _read_image(path: Path) -> tuple[NDArray[Any] | None, str]:
    """The picture, or ``None`` and why it cannot be read."""
    from vision.sources import SourceError, read_image_file

    try:
        return read_image_file(path), ""
    except SourceError as exc:
        return None, str(exc)


def _existing_profile(path: Path) -> Profile:
    if not path.exists():
        return Profile()
    try:
        return load_profile(path)
    except ProfileError as exc:
        raise CliError(f"{exc} (the --out profile exists and would be updated)") from None


# -- board-image ----------------------------------------------------------------------------------

def run_board_image(args: argparse.Namespace) -> int:
    out = writable_file(args.out)
    if args.px_per_square < 10 or args.px_per_square > 2000:
        raise CliError(f"--px-per-square must be between 10 and 2000, got {args.px_per_square}")
    image = target_image(args.px_per_square)
    try:
        ok, encoded = cv2.imencode(out.suffix or ".png", image)
    except cv2.error:
        ok = False
    if not ok:
        raise CliError(f"{args.out}: cannot encode an image of that type (use .png)")
    try:
        out.write_bytes(encoded.tobytes())
    except OSError as exc:
        raise CliError(f"{args.out}: {exc.strerror or exc}") from None
    t = DEFAULT_TARGET
    _progress(f"wrote {out}: {t.squares_x}x{t.squares_y} squares, {t.dictionary}, marker {t.marker_ratio} x square, "
              f"{image.shape[1]}x{image.shape[0]} px; print it flat and measure one square in mm")
    return 0


# -- camera ----------------------------------------------------------------------------------------

def _natural_key(path: Path) -> list[Any]:
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", path.name)]


def run_camera(args: argparse.Namespace) -> int:
    folder = Path(args.images)
    if not folder.exists():
        raise CliError(f"{args.images}: no such folder")
    if not folder.is_dir():
        raise CliError(f"{args.images}: is a file, expected a folder of photos")
    if not args.square_mm > 0:
        raise CliError(f"--square-mm must be positive, got {args.square_mm}")
    if args.min_corners < 6:
        raise CliError(f"--min-corners must be at least 6, got {args.min_corners}")
    if not args.max_blur_px > 0:
        raise CliError(f"--max-blur-px must be positive, got {args.max_blur_px}")
    out = writable_file(args.out)
    profile = _existing_profile(out)
    files = sorted((f for f in folder.iterdir() if f.suffix.lower() in IMAGE_SUFFIXES and f.is_file()),
                   key=_natural_key)
    if not files:
        raise CliError(f"{args.images}: no images ({', '.join(IMAGE_SUFFIXES)}) in the folder")
    views: list[CharucoView] = []
    unreadable: list[Rejection] = []
    for i, f in enumerate(files):
        image, why = _read_image(f)
        if image is None:
            unreadable.append(Rejection(f.name, "unreadable", why.removeprefix(f"{f}: ")))
            _progress(f"[{i + 1}/{len(files)}] {f.name}: unreadable")
            continue
        view = detect_charuco(image, f.name)
        blur = "-" if np.isnan(view.blur_px) else f"{view.blur_px:.2f}"
        _progress(f"[{i + 1}/{len(files)}] {f.name}: {view.count} corners, blur {blur} px")
        views.append(view)
    options = CalibrationOptions(max_blur_px=args.max_blur_px, min_corners=args.min_corners)
    try:
        calibration = calibrate_views(views, args.square_mm, DEFAULT_TARGET, options, _progress)
    except CalibrationError as exc:
        extra = f"; {len(unreadable)} unreadable" if unreadable else ""
        raise CliError(f"{args.images}: {exc}{extra}") from None
    calibration = replace(calibration, rejected=(*unreadable, *calibration.rejected))
    for r in calibration.rejected:
        _progress(f"rejected {r.image}: {r.reason}")
    for warning in calibration.warnings:
        _progress(f"warning: {warning}")
    k = calibration.k()
    _progress(f"fx {k[0, 0]:.1f} fy {k[1, 1]:.1f} cx {k[0, 2]:.1f} cy {k[1, 2]:.1f}, RMS "
              f"{calibration.rms_px:.3f} px from {calibration.images_used} images")
    save_profile(out, profile.with_camera(calibration))
    emit(calibration.to_json())
    return 0


# -- board ----------------------------------------------------------------------------------------

def parse_corners(text: str) -> list[tuple[float, float]]:
    """``x,y;x,y;x,y;x,y`` → 4 points; ``CliError`` naming the bad part."""
    parts = [p for p in text.replace(" ", "").split(";") if p]
    if len(parts) != 4:
        raise CliError(f"--corners: expected 4 points x,y;x,y;x,y;x,y, got {len(parts)}")
    points = []
    for i, part in enumerate(parts, 1):
        xy = part.split(",")
        try:
            if len(xy) != 2:
                raise ValueError
            x, y = float(xy[0]), float(xy[1])
        except ValueError:
            raise CliError(f"--corners: point {i} {part!r} is not x,y") from None
        if not (np.isfinite(x) and np.isfinite(y)):
            raise CliError(f"--corners: point {i} {part!r} is not finite")
        points.append((x, y))
    return points


def run_board(args: argparse.Namespace) -> int:
    if args.game not in BOARD_GAMES:
        raise CliError(f"{args.game} has no board to calibrate (its tiles lie on the bare table); "
                       f"board calibration is for {', '.join(BOARD_GAMES)}")
    path = existing_file(args.image)
    image, why = _read_image(path)
    if image is None:
        raise CliError(why)
    h, w = image.shape[:2]
    out = writable_file(args.out)
    profile = _existing_profile(out)
    if args.corners is not None:
        points = parse_corners(args.corners)
        for i, (x, y) in enumerate(points, 1):
            if not (-0.5 <= x <= w - 0.5 and -0.5 <= y <= h - 0.5):
                raise CliError(f"--corners: point {i} ({x:g},{y:g}) lies outside the {w}x{h} image")
        try:
            corners = order_corners(points)
        except CornersError as exc:
            raise CliError(f"--corners: {exc}") from None
    else:
        from vision.locate.corners import NoBoardFound, locate_board

        try:
            corners = locate_board(args.game, image)
        except NoBoardFound as exc:
            raise CliError(f"{args.image}: {exc} (or pass --corners)", EXIT_NO_BOARD) from None
    undistorter = None
    if profile.camera is not None:
        if not _same_aspect(profile.camera.image_size, (w, h)):
            raise CliError(f"{args.image}: picture is {w}x{h} but the profile's camera was calibrated at "
                           f"{profile.camera.image_size[0]}x{profile.camera.image_size[1]}")
        undistorter = Undistorter(profile.camera)
    board = sample_board_colours(args.game, image, corners, undistorter)
    for warning in colour_warnings(board):
        _progress(f"warning: {warning}")
    save_profile(out, profile.with_board(board))
    emit(board.to_json())
    return 0


def _same_aspect(a: tuple[int, int], b: tuple[int, int]) -> bool:
    return abs((a[0] / a[1]) / (b[0] / b[1]) - 1.0) <= 0.01


# -- tiles ------------------------------------------------------------------------------------------

def run_tiles(args: argparse.Namespace) -> int:
    from vision.read import TileLessonError, tile_learner_for

    try:
        learner = tile_learner_for(args.game)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    path = existing_file(args.image)
    image, why = _read_image(path)
    if image is None:
        raise CliError(why)
    out = writable_file(args.out)
    profile = _existing_profile(out)
    _progress(f"learning the {args.game} tiles in {path.name}")
    try:
        tiles = learner.learn(image, profile)
    except TileLessonError as exc:
        raise CliError(f"{args.image}: {exc}", EXIT_NO_BOARD) from None
    except ProfileError as exc:
        raise CliError(f"{args.out}: {exc}") from None
    save_profile(out, profile.with_tiles(tiles))
    emit(dict(tiles.summary))
    return 0
