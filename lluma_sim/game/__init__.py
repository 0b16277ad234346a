"""The simulated game: a small Uma Musume-style career rendered with Pillow, with ground truth per frame."""

from lluma_sim.game.game import SimGame
from lluma_sim.game.state import CareerRecord, GameState
from lluma_sim.game.truth import Element, GroundTruth, ReceivedTap, TruthScrollbar

__all__ = ["SimGame", "GameState", "CareerRecord", "GroundTruth", "Element", "ReceivedTap", "TruthScrollbar"]
