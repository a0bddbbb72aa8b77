"""`MessagesBuilder`: group a flat sequence of request and response parts into messages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import get_args

from typing_extensions import TypeIs

from agent._parts import ModelMessage, ModelRequest, ModelRequestPart, ModelResponse, ModelResponsePart

__all__ = ('MessagesBuilder',)

# `ModelRequestPart` is an `Annotated[Union, Discriminator]`: its first argument is the union of part classes.
_REQUEST_PART_TYPES: tuple[type, ...] = get_args(get_args(ModelRequestPart)[0])


def _is_request_part(part: ModelRequestPart | ModelResponsePart) -> TypeIs[ModelRequestPart]:
    return isinstance(part, _REQUEST_PART_TYPES)


@dataclass
class MessagesBuilder:
    """Builds a message history from parts given one at a time, in conversation order.

    Consecutive request parts share one `ModelRequest`, consecutive response parts one `ModelResponse`;
    a part of the other kind starts a new message. Protocol adapters use it to turn a frontend's flat
    list of message items into a history.
    """

    messages: list[ModelMessage] = field(default_factory=list[ModelMessage])
    """The messages built so far."""
    _break: bool = field(default=False, repr=False)

    def start_message(self) -> None:
        """Make the next part start a new message even if it is of the same kind as the last one."""
        self._break = True

    def add(self, part: ModelRequestPart | ModelResponsePart) -> None:
        """Add a part to the last message if it is of the same kind, otherwise to a new message.

        Args:
            part: A request part (system prompt, user prompt, tool return, retry prompt) or a response part.
        """
        last = self.messages[-1] if self.messages and not self._break else None
        self._break = False
        if _is_request_part(part):
            if isinstance(last, ModelRequest):
                # Reassign rather than append: the parts list may be shared with a message built elsewhere.
                last.parts = [*last.parts, part]
            else:
                self.messages.append(ModelRequest(parts=[part]))
        elif isinstance(last, ModelResponse):
            last.parts = [*last.parts, part]
        else:
            self.messages.append(ModelResponse(parts=[part]))
