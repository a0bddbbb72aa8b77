"""The deterministic Temporal workflow that drives the agent graph.

Workflow code imports only dataclasses, the agent graph and activity references: no HTTP clients or SDKs.
"""

from ._activity_options import ActivityOptions
from ._agent_workflow import AgentWorkflow, conversation_workflow_id
from ._approval_policy import ApprovalPolicy
from ._data_converter import data_converter, with_data_converter
from ._durable_agent import DeferredNotifier, DurableAgent
from ._encryption import (
    DecryptionError,
    EncryptionCodec,
    EncryptionKeyError,
    encrypted_data_converter,
    with_encryption,
)
from ._registry import get_agent, get_durable_agent, register_agent, registered_agents
from ._types import (
    AgentRunInput,
    AgentRunOutput,
    ConversationMessage,
    DeferredNotice,
    HistoryHandoff,
    MessagePage,
    Rejection,
    RunStatus,
)

__all__ = (
    'ActivityOptions',
    'AgentRunInput',
    'AgentRunOutput',
    'AgentWorkflow',
    'ApprovalPolicy',
    'ConversationMessage',
    'DecryptionError',
    'DeferredNotice',
    'DeferredNotifier',
    'DurableAgent',
    'EncryptionCodec',
    'EncryptionKeyError',
    'HistoryHandoff',
    'MessagePage',
    'Rejection',
    'RunStatus',
    'conversation_workflow_id',
    'data_converter',
    'encrypted_data_converter',
    'get_agent',
    'get_durable_agent',
    'register_agent',
    'registered_agents',
    'with_data_converter',
    'with_encryption',
)
