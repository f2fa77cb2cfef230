"""The lab's commands of ``companion``: ``render`` and ``bench``."""
