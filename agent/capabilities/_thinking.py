"""`Thinking`: turn on model thinking/reasoning at an effort level, whatever the provider."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from agent.settings import ModelSettings, ThinkingEffort

from ._abstract import AbstractCapability

__all__ = ('Thinking',)


@dataclass
class Thinking(AbstractCapability[Any]):
    """Enables thinking at the given effort; each model maps `ModelSettings.thinking` to its own parameters."""

    effort: bool | ThinkingEffort = True
    """`True` for the model's default effort, an effort level, or `False` to turn thinking off."""

    def get_model_settings(self) -> ModelSettings:
        return ModelSettings(thinking=self.effort)
