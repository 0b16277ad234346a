"""The whole reading: `Vision.analyze` (vision.py) over the stage list (reading.py), the VLM backends (vlm.py), the
region-hash cache, and the annotated picture. `Vision` is re-exported here: `from lluma_vision.pipeline import
Vision` is how the agent, the simulator and the commands take it."""

from lluma_vision.pipeline.vision import Vision as Vision
