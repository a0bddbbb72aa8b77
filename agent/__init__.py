"""Durable AI agents: the agent runtime.

The public API mirrors Pydantic AI's module layout with `agent` in place of `pydantic_ai`, so code written
for it runs after renaming the import.
"""

from __future__ import annotations

from ._agent_graph import CallToolsNode, ModelRequestNode, UserPromptNode
from ._content import (
    AudioUrl,
    BinaryContent,
    DocumentUrl,
    ImageUrl,
    ToolReturn,
    VideoUrl,
)
from ._events import AgentStreamEvent
from ._model_request_context import ModelRequestContext
from ._spec import AgentSpec
from ._template import TemplateStr
from .agent import Agent, EndStrategy
from .exceptions import (
    AgentRunError,
    ApprovalRequired,
    CallDeferred,
    ModelAPIError,
    ModelHTTPError,
    ModelRetry,
    SkipModelRequest,
    SkipToolExecution,
    SkipToolValidation,
    UnexpectedModelBehavior,
    UsageLimitExceeded,
    UserError,
)
from .output import ToolOutput
from .run import AgentRun, AgentRunResult, AgentRunResultEvent
from .settings import ModelSettings
from .tools import (
    DeferredToolRequests,
    DeferredToolResults,
    RunContext,
    Tool,
    ToolApproved,
    ToolDefinition,
    ToolDenied,
)
from .usage import RunUsage, UsageLimits

__all__ = (
    'Agent',
    'AgentRun',
    'AgentRunError',
    'AgentRunResult',
    'AgentRunResultEvent',
    'AgentSpec',
    'AgentStreamEvent',
    'ApprovalRequired',
    'AudioUrl',
    'BinaryContent',
    'CallDeferred',
    'CallToolsNode',
    'DeferredToolRequests',
    'DeferredToolResults',
    'DocumentUrl',
    'EndStrategy',
    'ImageUrl',
    'ModelAPIError',
    'ModelHTTPError',
    'ModelRequestContext',
    'ModelRequestNode',
    'ModelRetry',
    'ModelSettings',
    'RunContext',
    'RunUsage',
    'SkipModelRequest',
    'SkipToolExecution',
    'SkipToolValidation',
    'TemplateStr',
    'Tool',
    'ToolApproved',
    'ToolDefinition',
    'ToolDenied',
    'ToolOutput',
    'ToolReturn',
    'UnexpectedModelBehavior',
    'UsageLimitExceeded',
    'UsageLimits',
    'UserError',
    'UserPromptNode',
    'VideoUrl',
)
