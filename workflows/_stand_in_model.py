"""`StandInModel`: the agent's model as the workflow sees it.

Inside the workflow nothing may open a network connection, so the run holds a stand-in that reports
the real model's name, provider and default settings (all that deterministic code may read) while the
actual requests go through the model-request activity.
"""

from __future__ import annotations

from typing import Any

from agent.messages import ModelMessage, ModelResponse
from agent.models import Model, ModelRequestParameters
from agent.settings import ModelSettings

__all__ = ('StandInModel',)


class StandInModel(Model):
    """Reports a model's identity inside a workflow; never makes requests itself."""

    def __init__(self, model: Model | str | None) -> None:
        settings: ModelSettings | None = None
        if isinstance(model, Model):
            system, name, settings = model.system, model.model_name, model.settings
        elif isinstance(model, str) and ':' in model:
            system, _, name = model.removeprefix('gateway/').partition(':')
        else:
            system, name = 'unknown', model or 'unknown'
        super().__init__(settings=settings)
        self._system = system
        self._model_name = name

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        raise RuntimeError('StandInModel does not make requests: the workflow sends them through an activity')

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def system(self) -> str:
        return self._system

    def __repr__(self) -> str:
        return f'StandInModel({self._system}:{self._model_name})'

    def __eq__(self, other: Any) -> bool:
        return isinstance(other, StandInModel) and other.label == self.label

    def __hash__(self) -> int:
        return hash(self.label)
