"""`ToolSearch`: discovery of deferred tools by the model. Not available yet (see docs/compatibility.md)."""

from __future__ import annotations

from typing import Any

from agent._tool import AgentDepsT
from agent.exceptions import UserError

from ._abstract import AbstractCapability

__all__ = ('ToolSearch',)


class ToolSearch(AbstractCapability[AgentDepsT]):
    """Would let the model discover tools marked `defer_loading=True`; this project does not provide it yet.

    The name exists so that agent specs and code naming it get a clear error rather than an unknown name.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise UserError(
            'The ToolSearch capability is not available in this project yet; tools marked defer_loading=True are '
            'discovered only through a native tool search the model supports (see docs/compatibility.md).'
        )
