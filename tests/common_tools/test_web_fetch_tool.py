"""`agent.common_tools.web_fetch`: the fetch tool on its own, the same one `WebFetch` falls back to."""

from __future__ import annotations

from agent import Agent
from agent.capabilities import WebFetch
from agent.common_tools.web_fetch import web_fetch_tool
from agent.messages import ModelMessage, ModelResponse, RetryPromptPart, TextPart, ToolCallPart, ToolReturnPart
from agent.models import ModelProfile
from agent.models.function import AgentInfo, FunctionModel
from tests.capabilities.catalog._web_server import web_server


def _fetching_model(url: str) -> FunctionModel:
    """Calls the only tool it is given on `url`, then answers with what came back."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        for part in messages[-1].parts:
            if isinstance(part, ToolReturnPart | RetryPromptPart):
                return ModelResponse(parts=[TextPart(str(part.content))])
        return ModelResponse(parts=[ToolCallPart(info.function_tools[0].name, {'url': url})])

    return FunctionModel(respond, profile=ModelProfile(supported_native_tools=frozenset()))


async def test_the_tool_refuses_this_machine_unless_local_urls_are_allowed() -> None:
    with web_server() as server:
        url = f'{server.base_url}/page'
        refused = await Agent(_fetching_model(url), tools=[web_fetch_tool()]).run('fetch')
        assert 'is a loopback address' in refused.output
        assert server.requested == []
        allowed = await Agent(_fetching_model(url), tools=[web_fetch_tool(allow_local_urls=True)]).run('fetch')
    assert allowed.output.startswith(f'URL: {url}\n\n# Welcome')


async def test_the_tool_and_the_capability_fallback_answer_alike() -> None:
    with web_server() as server:
        url = f'{server.base_url}/page'
        short_tool = web_fetch_tool(allow_local_urls=True, max_content_length=12)
        by_tool = await Agent(_fetching_model(url), tools=[short_tool]).run('fetch')
        capability = WebFetch(allowed_networks=['127.0.0.1/32'], max_content_tokens=3)  # about 4 characters a token
        by_capability = await Agent(_fetching_model(url), capabilities=[capability]).run('fetch')
    assert by_tool.output == f'URL: {url}\n\n# Welcome\n\nS\n\n[content truncated]'
    assert by_capability.output == by_tool.output
