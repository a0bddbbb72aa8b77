"""Turning a model name like `'openai:gpt-5.2'` into a `Model`, through a registry of providers.

HTTP providers live in their own modules and register a factory when imported. The registry knows which
module serves each provider name, so a model string imports only the provider it names.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Literal

from typing_extensions import TypeAliasType

from agent.exceptions import UserError

from ._model import Model

__all__ = ('KnownModelName', 'infer_model', 'register_model_provider')

KnownModelName = TypeAliasType('KnownModelName', Literal['test'] | str)
"""A model name: `'test'` or `'<provider>:<model>'` (optionally prefixed with `'gateway/'`)."""

_factories: dict[str, Callable[[str], Model]] = {}

_PROVIDER_MODULES: dict[str, str] = {
    'openai': 'agent.models.openai',
    'openai-chat': 'agent.models.openai',
    'openai-responses': 'agent.models.openai',
    'anthropic': 'agent.models.anthropic',
    'google': 'agent.models.google',
    'google-gla': 'agent.models.google',
    'cerebras': 'agent.models.cerebras',
    'openrouter': 'agent.models.openrouter',
}
"""The module that registers each provider's factory when imported."""


def register_model_provider(provider: str, factory: Callable[[str], Model]) -> None:
    """Make `'<provider>:<model>'` strings resolve to `factory(<model>)`.

    Args:
        provider: The provider prefix, e.g. `'openai'`.
        factory: Builds a model from the part of the string after the colon.
    """
    _factories[provider] = factory


def _test_model_factory(model_name: str) -> Model:
    from .test import TestModel

    return TestModel(model_name=model_name)


register_model_provider('test', _test_model_factory)


def infer_model(model: Model | KnownModelName) -> Model:
    """The model for `model`: a `Model` as is, or a model name resolved through the provider registry.

    Raises:
        UserError: if the name has no provider prefix or names an unknown provider.
    """
    if isinstance(model, Model):
        return model
    if model == 'test':
        return _test_model_factory('test')
    name = model.removeprefix('gateway/')
    provider, colon, model_name = name.partition(':')
    if not colon or not provider or not model_name:
        raise UserError(
            f'Cannot infer a model from {model!r}: use the "<provider>:<model>" format, e.g. "openai:gpt-5.2", '
            f'or pass a Model instance.'
        )
    factory = _factories.get(provider) or _import_provider(provider)
    if factory is None:
        raise UserError(
            f'Unknown model provider {provider!r} in {model!r}. Known providers: {", ".join(_known_providers())}'
        )
    return factory(model_name)


def _import_provider(provider: str) -> Callable[[str], Model] | None:
    module = _PROVIDER_MODULES.get(provider)
    if module is None or importlib.util.find_spec(module) is None:
        return None
    importlib.import_module(module)
    return _factories.get(provider)


def _known_providers() -> list[str]:
    available = {p for p, module in _PROVIDER_MODULES.items() if importlib.util.find_spec(module) is not None}
    return sorted(available | set(_factories))
