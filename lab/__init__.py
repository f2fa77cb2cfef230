"""The lab beside the product: what makes, trains and measures the companion, never what runs it.

- ``lab.render``: the synthetic renderer (pictures and game videos with exact labels);
- ``lab.sim``: simulated tables (``--source sim | sim-lite | render`` of ``companion serve``);
- ``lab.train``: the scripts that make the training data and train the committed models;
- ``lab.evaluate``: scoring readings and followed games against the renderer's truth;
- ``lab.bench``: ``companion bench …``; ``lab.cli``: the ``render`` and ``bench`` commands.

The lab imports the product (``engine``, ``calibration``, ``vision``, ``companion_api``); the product
never imports the lab: the lab's commands and sources reach ``companion`` through the entry points
named in ``pyproject.toml`` (``companion_api.plugins``).
"""
