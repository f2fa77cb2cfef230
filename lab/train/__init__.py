"""Scripts that make training data from the renderer and train the committed models (``vision/models``)."""
