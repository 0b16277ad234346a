"""Offline stand-ins: a simulated phone (game + adb server) and a Messages API stand-in."""
