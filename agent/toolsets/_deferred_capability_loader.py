"""Names shared by deferred capability loading: the `load_capability` tool and its messages.

Deferred loading itself (`defer_loading=True` on a capability) is not available yet; see docs/compatibility.md.
"""

from agent._typed_tool_parts import LOAD_CAPABILITY_TOOL_NAME

__all__ = ('LOAD_CAPABILITY_ALREADY_AVAILABLE_MESSAGE_TEMPLATE', 'LOAD_CAPABILITY_TOOL_NAME')

LOAD_CAPABILITY_ALREADY_AVAILABLE_MESSAGE_TEMPLATE = (
    'Capability {capability_id!r} is already available: use its instructions and tools, '
    'and do not call `load_capability` for it again.'
)
"""What the model is told when it loads a capability that is already live (format with `capability_id`)."""
