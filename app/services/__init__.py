"""Use cases of a few lines each: load, decide, append, commit."""
