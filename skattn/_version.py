"""The package version, in a module of its own that imports nothing (a leaf)."""

__version__ = "0.4.0.dev0"
