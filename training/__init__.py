"""Repo-only training scripts (not shipped in the distribution)."""
