"""The screen map learned from play (issue 30): where the agent is, the ways out, the path to a screen.

`model` holds the map (screens, transitions, trusted edges, paths), `store` its file beside the memory folder,
`actions` the canonical key of an action.
"""

from lluma_agent.navmap.model import Interruption, PendingStep, ScreenInfo, ScreenMap, Transition
from lluma_agent.navmap.store import MapError, load_map, map_path_for, open_map, save_map

__all__ = ["Interruption", "MapError", "PendingStep", "ScreenInfo", "ScreenMap", "Transition", "load_map",
           "map_path_for", "open_map", "save_map"]
