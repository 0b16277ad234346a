"""The top layer: the `lluma` dispatcher and the demo wiring of the agent to the simulator.

It may import every other lluma package; nothing imports it (see docs/ARCHITECTURE.md, "Layers")."""
