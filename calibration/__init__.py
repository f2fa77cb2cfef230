"""Calibration: camera intrinsics from a ChArUco target, board corners and colour references.

Modules, one idea each:
- ``target``: the default ChArUco target (7 × 5 squares, DICT_5X5_100, markers 0.7 × square).
- ``distortion``: the Brown–Conrady lens model (k1, k2, p1, p2, k3) on normalised points.
- ``views``: finding ChArUco corners in one photo, and how sharp that photo is.
- ``camera``: ``calibrate_camera(images) -> CameraCalibration`` with view rejection.
- ``profile``: the versioned profile JSON (``ProfileError`` on bad input), load/save/merge.
- ``undistort``: ``Undistorter(profile)`` for images (cached maps) and points.
- ``board_geometry``: corner order (INTERFACES §3), board units, squares and cells of each board.
- ``board_colours``: ``sample_board_colours`` — the board section of a profile from a picture.
- ``rectify``: ``rectify_board(image, profile)`` — the board seen from straight above.
- ``fit``: ``profile_fits(profile, image)`` — is the stored board still where it was?
"""
