"""The renderer's simulated table as a frame source (``--source render``, the live simulated table):
frames with their labels, for the tracker and for the oracle observer that reads the labels."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lab.render.video import GameVideo, VideoSpec
from vision.sources import FrameTuple


@dataclass
class SimSource:
    """The renderer's simulated table (``lab.render.video``), frame by frame, with its labels.

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
