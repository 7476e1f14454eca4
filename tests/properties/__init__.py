"""Property tests and fuzzing of the readers and round trips."""
