"""The game's words (FACTS): what the real client and Android print, which the simulated game draws and the stand-in
player reads as a model that knows the game would. The base of lluma_sim: the game and the API stand-in both import
it, and it imports nothing of theirs (the stand-in never sees the game's state, only what a screen says)."""

from __future__ import annotations

APP_LABEL = "Umamusume"  # the game's name under its launcher icon and in Android's dialogs
