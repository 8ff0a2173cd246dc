"""What a run is allowed to find: ignore entries (a baseline of accepted findings) and the `--fail-on` gate."""
