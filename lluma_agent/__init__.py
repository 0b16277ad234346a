"""LLuMa: a vision-driven agent that plays a mobile game over ADB with Claude."""

__version__ = "0.1.0"
