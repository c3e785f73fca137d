"""gradir package."""
