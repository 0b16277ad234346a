"""The game's flows: each a module of functions over the game's state (lluma_sim.game.flow.Play)."""
