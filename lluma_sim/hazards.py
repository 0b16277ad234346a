"""What a night brings to the simulated game: the kinds, their counts and the rate they come at.

The plan lives with the game that carries it out (`lluma_sim/game/hazards.py`: the game is the simulator's
bottom layer, and draws them after its own inputs); this is its name for the wiring above (`lluma demo`,
`lluma sim phone`, benchmarks).
"""

from lluma_sim.game.hazards import (
    HAZARD_KINDS,
    RANDOM_KINDS,
    HazardKind,
    HazardsInjected,
    check_rate,
)

__all__ = ["HAZARD_KINDS", "RANDOM_KINDS", "HazardKind", "HazardsInjected", "check_rate"]
