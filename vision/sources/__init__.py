"""Frame sources by name: ``camera:N``, ``video:PATH`` (or a plain path: a video file or a folder
of numbered frames) and ``sim`` (the renderer's live simulated table).

Every source is an iterable of ``(frame_index, t_seconds, image)`` with BGR ``uint8`` images.
``SourceError`` names what is wrong with a source that cannot be opened.
"""

from __future__ import annotations

import io
import os
import re
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
FrameTuple = tuple[int, float, Image]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
DEFAULT_FPS = 15.0


#: Largest picture file read (bytes): a 4K PNG is ~25 MB; a larger file is not a camera frame.
MAX_IMAGE_BYTES = 100 * 1024 * 1024
#: Most pixels a picture may declare before it is decoded: a 48 MP phone photo fits; a small
#: file declaring more is a decompression bomb (gigabytes once decoded).
MAX_IMAGE_PIXELS = 50_000_000


class SourceError(ValueError):
    """A source that cannot be opened or read; the message names the problem."""


def _cut_short(data: bytes) -> str | None:
    """The format of a PNG or JPEG file whose end is missing (``None`` when it ends as its format
    says, or is another format): decoders would print their own complaints on stderr."""
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return None if b"IEND" in data[-16:] else "PNG"
    if data.startswith(b"\xff\xd8"):
        return None if b"\xff\xd9" in data[-64:] else "JPEG"
    return None


def read_image_file(path: str | Path) -> Image:
    """A picture file as BGR ``uint8``; ``SourceError`` naming the problem for a missing, empty,
    truncated, oversized (file or declared pixels) or undecodable file."""
    p = Path(path)
    if not p.exists():
        raise SourceError(f"{p}: no such file")
    if p.is_dir():
        raise SourceError(f"{p}: is a folder, expected a picture")
    try:
        with p.open("rb") as fh:
            data = fh.read(MAX_IMAGE_BYTES + 1)
    except OSError as exc:
        raise SourceError(f"{p}: cannot be read ({exc.strerror or exc})") from None
    return decode_image(data, str(p))


def decode_image(data: bytes, name: str = "the picture") -> Image:
    """Picture bytes (PNG, JPEG, BMP, TIFF, WebP) as BGR ``uint8``. The size the picture declares
    is read from its header first (Pillow opens lazily), so a file over ``MAX_IMAGE_BYTES`` or
    declaring over ``MAX_IMAGE_PIXELS`` is refused before any decoding; ``SourceError`` naming
    ``name`` and the problem for those and for empty, truncated or undecodable data."""
    if not data:
        raise SourceError(f"{name}: is empty, not a picture")
    if len(data) > MAX_IMAGE_BYTES:
        raise SourceError(f"{name}: larger than {MAX_IMAGE_BYTES // (1024 * 1024)} MB, not a camera picture")
    short = _cut_short(data)
    if short:
        raise SourceError(f"{name}: not a readable image (the {short} file is cut short)")
    width, height = declared_size(data, name)
    if width * height > MAX_IMAGE_PIXELS:
        raise SourceError(f"{name}: not a readable image (it declares {width}×{height} pixels, over the "
                          f"{MAX_IMAGE_PIXELS // 1_000_000} megapixel limit; refused before decoding)")
    img, complaint = _decode_quietly(data)
    if img is None or img.size == 0:
        why = f" ({complaint})" if complaint else ""
        raise SourceError(f"{name}: not a readable image{why}")
    return as_image(img)


def declared_size(data: bytes, name: str = "the picture") -> tuple[int, int]:
    """(width, height) as the picture's header declares them, without decoding its pixels."""
    from PIL import Image as PilImage

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", PilImage.DecompressionBombWarning)
            with PilImage.open(io.BytesIO(data)) as im:
                width, height = im.size
    except PilImage.DecompressionBombError:  # Pillow's own limit, far above ours
        raise SourceError(f"{name}: not a readable image (it declares far over the "
                          f"{MAX_IMAGE_PIXELS // 1_000_000} megapixel limit; refused before decoding)") from None
    except Exception:  # Pillow raises many kinds (UnidentifiedImageError, SyntaxError, struct.error…)
        raise SourceError(f"{name}: not a readable image (not a PNG, JPEG, BMP, TIFF or WebP picture)") from None
    return int(width), int(height)


_STDERR_LOCK = threading.Lock()


def _decode_quietly(data: bytes) -> tuple[NDArray[np.uint8] | None, str]:
    """``cv2.imdecode`` of ``data`` with the C decoders' messages (libpng's "Read Error" …) kept off
    stderr: the picture, or ``None`` and a short reason. What else reached stderr meanwhile (another
    thread's line) is passed on."""
    with _STDERR_LOCK, tempfile.TemporaryFile() as caught:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(caught.fileno(), 2)
        reason = ""
        try:
            img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
        except cv2.error:
            img, reason = None, "too large or damaged for OpenCV"
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        text = caught.read().decode("utf-8", "replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    if img is None:
        decoder = [ln for ln in lines if "error" in ln.lower()]
        if decoder and not reason:
            reason = decoder[-1].split(":", 1)[-1].strip()[:80]
        return None, reason
    if lines:
        sys.stderr.write(text)
    return np.asarray(img, np.uint8), ""


class VideoFileSource:
    """A video file through ``cv2.VideoCapture``; ``t`` = index / fps (the file's, else ``fps``)."""

    def __init__(self, path: str | Path, fps: float | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"{path}: no such video file")
        if self.path.suffix.lower() in IMAGE_SUFFIXES:
            raise SourceError(f"{path}: is a single picture; give a video file or a folder of numbered frames")
        # FFmpeg's own complaints about a file it cannot demux would go to stderr beside ours
        os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")
        cap = cv2.VideoCapture(str(self.path))
        ok = cap.isOpened()
        frame_ok = False
        if ok:
            frame_ok, _ = cap.read()
        file_fps = float(cap.get(cv2.CAP_PROP_FPS) or 0.0) if ok else 0.0
        self.frame_count = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0) if ok else 0
        cap.release()
        if not ok or not frame_ok:
            raise SourceError(f"{path}: not a video OpenCV can read")
        self.fps = fps or (file_fps if 1.0 <= file_fps <= 240.0 else DEFAULT_FPS)

    def __iter__(self) -> Iterator[FrameTuple]:
        yield from _read_all(cv2.VideoCapture(str(self.path)), lambda i: i / self.fps)


def _read_all(cap: cv2.VideoCapture, clock: Callable[[int], float]) -> Iterator[FrameTuple]:
    """Every frame ``cap`` gives, numbered, timed by ``clock(index)``; ``cap`` released at the end."""
    try:
        i = 0
        while True:
            ok, img = cap.read()
            if not ok:
                break
            yield i, clock(i), as_image(img)
            i += 1
    finally:
        cap.release()


def _frame_number(path: Path) -> int | None:
    nums = re.findall(r"\d+", path.stem)
    return int(nums[-1]) if nums else None


class FolderSource:
    """A folder of numbered frames (``frame_0001.png`` …), in numeric order; ``t`` = number / fps."""

    def __init__(self, folder: str | Path, fps: float | None = None) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"{folder}: no such folder")
        files = [p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES and ".mask" not in p.name
                 and _frame_number(p) is not None]
        files = [p for p in files if len(p.suffixes) == 1]  # skip e.g. x.occluders.png
        if not files:
            raise SourceError(f"{folder}: holds no numbered image frames")
        self.files = sorted(files, key=lambda p: (_frame_number(p) or 0, p.name))
        self.fps = fps or DEFAULT_FPS
        self.frame_count = len(self.files)

    def __iter__(self) -> Iterator[FrameTuple]:
        first = _frame_number(self.files[0]) or 0
        for p in self.files:
            img = read_image_file(p)
            n = (_frame_number(p) or 0) - first
            yield n, n / self.fps, img


class CameraSource:
    """A live camera through ``cv2.VideoCapture(N)``; ``t`` is wall-clock time since the start."""

    def __init__(self, index: int, size: tuple[int, int] | None = (1280, 720)) -> None:
        self.index = index
        self.size = size
        self.frame_count = 0

    def __iter__(self) -> Iterator[FrameTuple]:
        cap = _open_camera(self.index)
        if not cap.isOpened():
            raise SourceError(f"camera:{self.index}: cannot open the camera")
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        t0 = time.monotonic()
        yield from _read_all(cap, lambda _i: time.monotonic() - t0)


def _open_camera(index: int) -> cv2.VideoCapture:
    """``cv2.VideoCapture(index)`` without OpenCV's own warnings on stderr (a missing camera is
    said once, in our words, and tried again quietly while it is away)."""
    logging = cv2.utils.logging
    level = logging.getLogLevel()
    logging.setLogLevel(logging.LOG_LEVEL_SILENT)
    try:
        return cv2.VideoCapture(index)
    finally:
        logging.setLogLevel(level)


def probe_camera(index: int) -> None:
    """``SourceError`` unless camera ``index`` opens and gives a picture."""
    cap = _open_camera(index)
    try:
        if not cap.isOpened():
            raise SourceError(f"camera {index} cannot be opened (not connected, or in use by another program)")
        ok, img = cap.read()
        if not ok or img is None:
            raise SourceError(f"camera {index} opened but gives no picture")
    finally:
        cap.release()


FrameSource = VideoFileSource | FolderSource | CameraSource


def open_source(text: str, fps: float | None = None) -> FrameSource:
    """``camera:N``, ``video:PATH``, or a plain path (video file or frame folder)."""
    kind, sep, arg = text.partition(":")
    if kind == "camera" and sep:
        if not arg.isdigit():
            raise SourceError(f"{text}: the camera must be a number, like camera:0")
        return CameraSource(int(arg))
    path = Path(arg if kind == "video" and sep else text)
    if kind == "video" and sep and not arg:
        raise SourceError("video: needs a path, like video:game.mp4")
    if path.is_dir():
        return FolderSource(path, fps)
    if not path.exists():
        raise SourceError(f"{path}: no such file or folder")
    return VideoFileSource(path, fps)


def as_image(img: Any) -> Image:
    """A frame as BGR uint8 (grey frames are expanded)."""
    a = np.asarray(img)
    if a.ndim == 2:
        a = cv2.cvtColor(a, cv2.COLOR_GRAY2BGR)
    return a.astype(np.uint8, copy=False)
