"""meeplezoo environments: one entry module per game (``kerala_v0``, ...), the engines in subpackages."""
