"""The `kb` command line: parse arguments, call `kb`, render tables / JSON."""
