"""Benchmarks behind ``companion bench``; each module is one target."""
