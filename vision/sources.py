"""Frame sources by name: ``camera:N``, ``video:PATH`` (or a plain path: a video file or a folder
of numbered frames) and ``sim`` (the renderer's live simulated table).

Every source is an iterable of ``(frame_index, t_seconds, image)`` with BGR ``uint8`` images.
``SourceError`` names what is wrong with a source that cannot be opened.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

Image = NDArray[np.uint8]
FrameTuple = tuple[int, float, Image]

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
DEFAULT_FPS = 15.0


class SourceError(ValueError):
    """A source that cannot be opened or read; the message names the problem."""


class VideoFileSource:
    """A video file through ``cv2.VideoCapture``; ``t`` = index / fps (the file's, else ``fps``)."""

    def __init__(self, path: str | Path, fps: float | None = None) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise SourceError(f"{path}: no such video file")
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
            img = cv2.imread(str(p), cv2.IMREAD_COLOR)
            if img is None:
                raise SourceError(f"{p}: not an image OpenCV can read")
            n = (_frame_number(p) or 0) - first
            yield n, n / self.fps, as_image(img)


class CameraSource:
    """A live camera through ``cv2.VideoCapture(N)``; ``t`` is wall-clock time since the start."""

    def __init__(self, index: int, size: tuple[int, int] | None = (1280, 720)) -> None:
        self.index = index
        self.size = size
        self.frame_count = 0

    def __iter__(self) -> Iterator[FrameTuple]:
        cap = cv2.VideoCapture(self.index)
        if not cap.isOpened():
            raise SourceError(f"camera:{self.index}: cannot open the camera")
        if self.size is not None:
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, self.size[0])
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, self.size[1])
        t0 = time.monotonic()
        yield from _read_all(cap, lambda _i: time.monotonic() - t0)


@dataclass
class SimSource:
    """The renderer's simulated table (``vision.render.video``), frame by frame, with its labels.

    ``labels`` keeps the labels of recent frames by index (for the oracle observer);
    ``record_text()`` is the truth record once the game has been iterated; ``header`` is the
    simulated game's header (its first player is the simulation's choice).
    """

    game: str = "triolet"
    seed: int = 0
    fps: float = 10.0
    size: tuple[int, int] = (1280, 720)
    players: int = 2
    options: dict[str, Any] = field(default_factory=dict)
    keep_labels: int = 64
    labels: dict[int, dict[str, Any]] = field(default_factory=dict)
    frame_count: int = 0

    def __post_init__(self) -> None:
        from vision.render.video import GameVideo, VideoSpec

        self.video = GameVideo(VideoSpec(game=self.game, seed=self.seed, fps=self.fps, size=self.size,
                                         players=self.players, **self.options))

    def __iter__(self) -> Iterator[FrameTuple]:
        for i, (img, labels) in enumerate(self.video.frames()):
            self.labels[i] = labels
            self.labels.pop(i - self.keep_labels, None)
            yield i, i / self.fps, img

    @property
    def header(self) -> Any:
        return self.video.sim.header

    def labels_of(self, index: int) -> dict[str, Any] | None:
        return self.labels.get(index)

    def record_text(self) -> str:
        return str(self.video.record_text())


FrameSource = VideoFileSource | FolderSource | CameraSource | SimSource


def open_source(text: str, fps: float | None = None) -> FrameSource:
    """``camera:N``, ``video:PATH``, ``sim`` / ``sim:SEED``, or a plain path (video file or frame folder)."""
    kind, sep, arg = text.partition(":")
    if text == "sim" or (kind == "sim" and sep):
        seed = 0
        if arg:
            if not arg.isdigit():
                raise SourceError(f"{text}: the seed must be a number, like sim:3")
            seed = int(arg)
        return SimSource(seed=seed, fps=fps or 10.0)
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
