"""Module paths and root names of Pydantic AI resolve after renaming `pydantic_ai` to `agent`."""

from __future__ import annotations

from typing import Any

import pytest

import agent
from agent.providers import Provider

# Every name of Pydantic AI's `pydantic_ai.__all__` (v1.107.5, the release the seeds describe, 156 names).
PYDANTIC_AI_ROOT_NAMES = (
    '__version__',
    'AbstractConcurrencyLimiter',
    'AbstractToolset',
    'Agent',
    'AgentCapability',
    'AgentEventStream',
    'AgentModelSettings',
    'AgentNativeTool',
    'AgentRetries',
    'AgentRun',
    'AgentRunError',
    'AgentRunResult',
    'AgentRunResultEvent',
    'AgentSpec',
    'AgentStreamEvent',
    'AgentToolset',
    'AnyConcurrencyLimit',
    'ApprovalRequired',
    'ApprovalRequiredToolset',
    'AudioFormat',
    'AudioMediaType',
    'AudioUrl',
    'BaseToolCallPart',
    'BaseToolReturnPart',
    'BinaryContent',
    'BinaryImage',
    'CachePoint',
    'CallDeferred',
    'CallToolsNode',
    'CapabilityFunc',
    'CodeExecutionTool',
    'CombinedToolset',
    'CompactionPart',
    'ConcurrencyLimit',
    'ConcurrencyLimitExceeded',
    'ConcurrencyLimitedModel',
    'ConcurrencyLimiter',
    'DEFAULT_PROFILE',
    'DeferredLoadingToolset',
    'DeferredToolRequests',
    'DeferredToolResults',
    'DocumentFormat',
    'DocumentMediaType',
    'DocumentUrl',
    'Embedder',
    'EmbeddingModel',
    'EmbeddingResult',
    'EmbeddingSettings',
    'EndStrategy',
    'ExternalToolset',
    'FallbackExceptionGroup',
    'FilePart',
    'FileSearchTool',
    'FileUrl',
    'FilteredToolset',
    'FinalResultEvent',
    'FinishReason',
    'FunctionToolCallEvent',
    'FunctionToolResultEvent',
    'FunctionToolset',
    'HandleResponseEvent',
    'ImageFormat',
    'ImageGenerationTool',
    'ImageMediaType',
    'ImageUrl',
    'IncludeReturnSchemasToolset',
    'IncompleteToolCall',
    'InlineDefsJsonSchemaTransformer',
    'InstructionPart',
    'InstrumentationSettings',
    'JsonSchemaTransformer',
    'MCPServerTool',
    'MemoryTool',
    'ModelAPIError',
    'ModelHTTPError',
    'ModelMessage',
    'ModelMessagesTypeAdapter',
    'ModelProfile',
    'ModelProfileSpec',
    'ModelRequest',
    'ModelRequestContext',
    'ModelRequestNode',
    'ModelRequestPart',
    'ModelResponse',
    'ModelResponsePart',
    'ModelResponsePartDelta',
    'ModelResponseState',
    'ModelResponseStreamEvent',
    'ModelRetry',
    'ModelSettings',
    'MultiModalContent',
    'NativeOutput',
    'NativeToolCallPart',
    'NativeToolReturnPart',
    'OutputToolCallEvent',
    'OutputToolResultEvent',
    'PartDeltaEvent',
    'PartEndEvent',
    'PartStartEvent',
    'PrefixedToolset',
    'PreparedToolset',
    'PromptedOutput',
    'RenamedToolset',
    'RequestUsage',
    'RetryPromptPart',
    'RunContext',
    'RunUsage',
    'SetMetadataToolset',
    'SkipModelRequest',
    'SkipToolExecution',
    'SkipToolValidation',
    'StructuredDict',
    'SystemPromptPart',
    'TemplateStr',
    'TextContent',
    'TextOutput',
    'TextPart',
    'TextPartDelta',
    'ThinkingPart',
    'ThinkingPartDelta',
    'Tool',
    'ToolApproved',
    'ToolCallEvent',
    'ToolCallPart',
    'ToolCallPartDelta',
    'ToolChoice',
    'ToolDefinition',
    'ToolDenied',
    'ToolOrOutput',
    'ToolOutput',
    'ToolResultEvent',
    'ToolReturn',
    'ToolReturnPart',
    'ToolsetFunc',
    'ToolsetTool',
    'UndrainedPendingMessagesError',
    'UnexpectedModelBehavior',
    'UploadedFile',
    'UrlContextTool',
    'UsageLimitExceeded',
    'UsageLimits',
    'UserContent',
    'UserError',
    'UserPromptNode',
    'UserPromptPart',
    'VideoFormat',
    'VideoMediaType',
    'VideoUrl',
    'WebFetchTool',
    'WebSearchTool',
    'WebSearchUserLocation',
    'WrapperToolset',
    'XSearchTool',
    'capture_run_messages',
    'format_as_xml',
    'limit_model_concurrency',
)


@pytest.mark.parametrize('name', PYDANTIC_AI_ROOT_NAMES)
def test_pydantic_ai_root_name_imports_from_agent(name: str) -> None:
    assert name in agent.__all__
    assert getattr(agent, name) is not None


def test_root_names_are_the_same_objects_as_in_their_modules() -> None:
    from agent.exceptions import IncompleteToolCall
    from agent.messages import ModelRequest, TextPart
    from agent.toolsets import FunctionToolset
    from agent.usage import RequestUsage

    assert agent.ModelRequest is ModelRequest
    assert agent.TextPart is TextPart
    assert agent.FunctionToolset is FunctionToolset
    assert agent.RequestUsage is RequestUsage
    assert agent.IncompleteToolCall is IncompleteToolCall


def test_version_is_a_string() -> None:
    assert isinstance(agent.__version__, str)
    assert agent.__version__


def test_agent_spec_imports_from_the_agent_spec_module() -> None:
    from agent.agent import Agent
    from agent.agent.spec import AgentSpec

    assert AgentSpec is agent.AgentSpec
    assert Agent is agent.Agent


def test_capability_submodules_export_the_package_classes() -> None:
    from agent.capabilities import AbstractCapability, CombinedCapability, Hooks, WrapModelRequestHandler
    from agent.capabilities.abstract import AbstractCapability as AbstractFromModule
    from agent.capabilities.abstract import WrapModelRequestHandler as HandlerFromModule
    from agent.capabilities.combined import CombinedCapability as CombinedFromModule
    from agent.capabilities.hooks import Hooks as HooksFromModule

    assert AbstractFromModule is AbstractCapability
    assert HandlerFromModule is WrapModelRequestHandler
    assert CombinedFromModule is CombinedCapability
    assert HooksFromModule is Hooks


def test_profiles_module_has_the_model_profile_and_a_default() -> None:
    from agent.models import ModelProfile
    from agent.profiles import DEFAULT_PROFILE
    from agent.profiles import ModelProfile as ProfileFromModule

    assert ProfileFromModule is ModelProfile
    assert ModelProfile() == DEFAULT_PROFILE


def test_provider_is_subscriptable_in_annotations() -> None:
    from agent.providers.openai import OpenAIProvider

    alias: Any = Provider[Any]
    assert alias.__origin__ is Provider
    assert issubclass(OpenAIProvider, Provider)


def test_template_str_is_subscriptable_and_renders_the_same() -> None:
    template = agent.TemplateStr[dict[str, str]]('Hello {{name}}')

    assert isinstance(template, agent.TemplateStr)
    assert template.render({'name': 'Ada'}) == 'Hello Ada'


def test_the_httpx2_client_factory_is_importable_where_later_releases_keep_it() -> None:
    import httpx2

    from agent._http import create_async_httpx2_client

    client = create_async_httpx2_client(timeout=30, connect=2)
    assert isinstance(client, httpx2.AsyncClient)
    assert (client.timeout.read, client.timeout.connect) == (30, 2)
