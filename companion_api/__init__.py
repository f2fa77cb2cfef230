"""The table companion's outer layer: the ``companion`` CLI, the FastAPI app, the SQLite store."""
