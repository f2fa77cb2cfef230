"""Simulated tables: legal-looking positions and whole games played by simple players."""
