"""Each request kept as sent, in the run's `requests/` folder (`lluma logs --request`, `lluma replay`): the model
wrapped where the coordinator is built, so what is stored is exactly what went out. A turn's fold summary is sent
before its decision, so the file a turn keeps is the decision's request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from lluma_agent.model.claude import MessagesRequest, ModelReply
from lluma_agent.model.protocol import DecisionModel
from lluma_agent.runlog.requestlog import write_request


class RecordingModel:
    """`model`, writing each request under the turn `turn()` names before sending it."""

    def __init__(self, model: DecisionModel, folder: Path, turn: Callable[[], int]) -> None:
        self.model, self.folder, self.turn = model, folder, turn

    def decide(self, request: MessagesRequest) -> ModelReply:
        write_request(self.folder, self.turn(), request)
        return self.model.decide(request)

    def preflight(self, request: MessagesRequest) -> tuple[bool, str] | None:
        return self.model.preflight(request)
