"""Helpers shared across skattn: input validation and thread control."""
