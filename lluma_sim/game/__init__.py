"""The simulated game: a small Uma Musume-style career rendered with Pillow, with ground truth per frame."""

from lluma_sim.game.game import SimGame
from lluma_sim.game.truth import Element, GroundTruth, TruthScrollbar

__all__ = ["SimGame", "GroundTruth", "Element", "TruthScrollbar"]
