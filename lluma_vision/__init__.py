"""Screen -> VisionOutput (buttons, texts, menu, scrollbar, cinematic)."""
