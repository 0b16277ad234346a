"""`lluma fleet`: several devices from one command, one agent per device (docs/ARCHITECTURE.md, "Fleet").

- `folder.py`: the fleet's folder (its spec, each device's run folder and memory, the shared map, event book and
  procedures) and the records that cross from a device's agent to the supervisor.
- `agent.py`: one device's agent, started or resumed from its checkpoint, telling what it does as records.
- `worker.py`: that agent as a process of its own (one machine); `ray_engine.py`: as a Ray actor (several).
- `supervisor.py`: one loop over the devices' records: the live view, the fleet's budget, one notify stream,
  restarts from the checkpoint, a device gone, Ctrl+C.
"""
