"""An agent with a part of every kind the fingerprint reads, for the fingerprint's tests (one built per call)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

import pydantic

from agent import Agent, ModelRequestContext, RunContext, ToolDefinition
from agent.capabilities import AbstractCapability, HookSide
from agent.toolsets import ExternalToolset, FunctionToolset
from workflows import ApprovalRule, DurableAgent

TONE = 'plain'


class Invoice(pydantic.BaseModel):
    number: str
    total: float


@dataclass
class Trim(AbstractCapability[Any]):
    """Keeps the last `keep` messages before each model request, in the workflow."""

    hook_sides: ClassVar[dict[str, HookSide]] = {'before_model_request': 'workflow'}
    keep: int = 10

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        request_context.messages[:] = request_context.messages[-self.keep :]
        return request_context


def helper_words(ctx: RunContext[Any]) -> str:
    # A set of strings: compiled to a frozenset constant, whose order depends on the hash seed.
    return 'use short words' if TONE in {'plain', 'simple', 'friendly', 'casual'} else 'be brief'


def instructions(ctx: RunContext[Any]) -> str:
    return f'Tone: {TONE}. {helper_words(ctx)}'


def build() -> DurableAgent:
    """A durable agent with instructions, tools, toolsets, a capability, an output type and approval rules."""
    agent = Agent(
        'test',
        instructions=['You file invoices.', instructions],
        output_type=Invoice,
        model_settings={'temperature': 0.2, 'max_tokens': 300},
        capabilities=[Trim(keep=4)],
        toolsets=[
            FunctionToolset([lookup_customer]),
            ExternalToolset([ToolDefinition(name='ask_user', description='Ask the user.')]),
        ],
    )
    agent.tool_plain(requires_approval=True)(send_invoice)
    agent.tool_plain(add_line)
    return DurableAgent(
        agent,
        approval_rules={'send_invoice': ApprovalRule(approvers={'role:finance', 'carol'}, required_approvals=2)},
        roles={'finance': {'alice', 'bob', 'dave'}},
    )


def lookup_customer(name: str) -> str:
    """Find a customer by name."""
    return f'customer {name}'


def send_invoice(number: str) -> str:
    """Send the invoice."""
    return f'sent {number}'


def add_line(item: str, amount: float) -> str:
    """Add a line to the invoice."""
    return f'{item}: {amount:.2f}'


def main() -> None:
    """Print the fingerprint of `build()`'s agent (what a test compares across processes)."""
    from workflows import agent_fingerprint

    print(agent_fingerprint(build()))
