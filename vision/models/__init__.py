"""Small committed model files of the vision stack and the scripts that train them."""
