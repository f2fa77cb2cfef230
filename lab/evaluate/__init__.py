"""Scoring readings and followed games against the renderer's truth."""
