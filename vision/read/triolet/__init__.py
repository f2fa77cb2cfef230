"""Reading a Triolet board from one picture (``read_triolet``); see docs/READER.md.

Modules, one stage each: ``geometry`` (the tile-top plane and the rectified board),
``features`` (per-square feature vectors), ``classifier`` (the committed numpy MLP),
``six_nine`` (6 vs 9 by the count digit's corner and the loop), ``consistency`` (tile counts
T-B3/T-P7 and runs T-P4), ``reader`` (the entry point), ``evaluate`` (scoring against rendered
truth), ``holdout`` (styles and seeds kept out of training).
"""

from vision.read.triolet.reader import CellReading, TrioletReading, read_triolet

__all__ = ["CellReading", "TrioletReading", "read_triolet"]
