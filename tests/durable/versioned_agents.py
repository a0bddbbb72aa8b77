"""Two versions of the same agents, for the Worker Versioning tests: what version A's workers serve, and version B's.

From A to B the payments agent lost its `archive` tool and changed who may approve `transfer` (anyone under A, only
bob under B); every tool result and every chat answer names the version that produced it. A test serves A in its
own process and B from a worker process (`agents worker --agents tests.durable.versioned_agents:payments_b ...`):
one process registers one agent per name and task queue.
"""

from __future__ import annotations

from agent import Agent
from agent.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from agent.models.function import AgentInfo, FunctionModel
from workflows import ApprovalRule, DurableAgent

TRANSFER = ToolCallPart('transfer', {'amount': 900}, 't-1')
ARCHIVE = ToolCallPart('archive', {'path': 'a.txt'}, 'a-1')


def _pays(*calls: ToolCallPart) -> FunctionModel:
    """Calls the tools once, then sums up what they returned."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        last = messages[-1]
        returns = [p for p in last.parts if isinstance(p, ToolReturnPart)] if isinstance(last, ModelRequest) else []
        if not returns:
            return ModelResponse(parts=list(calls))
        return ModelResponse(parts=[TextPart('; '.join(f'{p.tool_name}={p.content}' for p in returns))])

    return FunctionModel(respond)


def _chats(version: str) -> FunctionModel:
    """Answers each message with the version that answers it and the message."""

    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        prompts = [
            p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts if isinstance(p, UserPromptPart)
        ]
        return ModelResponse(parts=[TextPart(f'{version} heard {prompts[-1]}')])

    return FunctionModel(respond)


def _payments(version: str) -> DurableAgent:
    agent = Agent(_pays(TRANSFER, ARCHIVE) if version == 'A' else _pays(TRANSFER), name='payments')

    @agent.tool_plain(requires_approval=True)
    def transfer(amount: int) -> str:
        return f'sent {amount} by {version}'

    if version == 'A':

        @agent.tool_plain(requires_approval=True)
        def archive(path: str) -> str:
            return f'archived {path} by {version}'

    rules = {} if version == 'A' else {'transfer': ApprovalRule(approvers={'bob'})}
    return DurableAgent(agent, approval_rules=rules)


payments_a = _payments('A')
payments_b = _payments('B')
chat_a = Agent(_chats('A'), name='chat')
chat_b = Agent(_chats('B'), name='chat')
