"""The deterministic Temporal workflow that drives the agent graph, what serves it, and the client API over it.

Three kinds of module live here, below the worker (`worker.py`) and the front doors (`doors`):

- In the workflow, run inside Temporal's sandbox and replayed: `_agent_workflow` (the workflow), its handlers
  (`_workflow_handlers`, `_answer_handlers`), a conversation's turns (`_conversation_loop`, `_turns`, `_handoff`), its
  waits for external events (`_event_waits`, `_resume_tokens`), the run's ports to activities (`_ports`, `_door`,
  `_remote_toolset`, `_stand_in_model`, `_activity_ids`, `_activity_options`), its input, output and limits (`_types`,
  `_run_input`, `_run_details`, `_run_attributes`, `_request_size`, `_result_size`, `_history_limits`, `_compact`,
  `_request_encoder`), failures (`_failures`, `_missing_keys`), the approval policy and spans. These import only
  dataclasses, the agent graph and activity references: no HTTP clients or SDKs.
- Serving it from a worker: the registry of agents (`_registry`, `_agent_loading`) and their versions
  (`_fingerprint`, which each run records as `_agent_version` says), the sandbox runner (`_runner`),
  evictions of waiting runs (`_eviction`), the data converter and payload encryption (`_data_converter`,
  `_encryption`) with its codec endpoint (`_codec_server`), tracing and telemetry, search attributes and the
  embedded dev server (`_dev_server`).
- The client API: `AgentClient` (`client`), the inbox, schedules, resolutions sent by resume token
  (`_token_sends`), connection settings and workflow ids.

The names below are imported when first used (PEP 562), not with the package: the `agents` command imports modules
of this package to talk to a server, and the workflow's modules bring in the whole agent runtime and Temporal's
worker, which a command that only parses its arguments or talks to a server never needs.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._activity_options import ActivityOptions
    from ._agent_workflow import AgentWorkflow
    from ._approval_policy import ApprovalPolicy
    from ._approval_rules import ApprovalRule
    from ._data_converter import data_converter, with_data_converter
    from ._decisions import DecisionRecord, PendingApproval, Vote
    from ._durable_agent import DeferredNotifier, DurableAgent
    from ._encryption import (
        DecryptionError,
        EncryptionCodec,
        EncryptionKeyError,
        encrypted_data_converter,
        with_encryption,
    )
    from ._fingerprint import agent_fingerprint
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
    from ._workflow_ids import conversation_workflow_id

__all__ = (
    'ActivityOptions',
    'AgentRunInput',
    'AgentRunOutput',
    'AgentWorkflow',
    'ApprovalPolicy',
    'ApprovalRule',
    'ConversationMessage',
    'DecisionRecord',
    'DecryptionError',
    'DeferredNotice',
    'DeferredNotifier',
    'DurableAgent',
    'EncryptionCodec',
    'EncryptionKeyError',
    'HistoryHandoff',
    'MessagePage',
    'PendingApproval',
    'Rejection',
    'RunStatus',
    'Vote',
    'agent_fingerprint',
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

_HOMES = {
    '_activity_options': ('ActivityOptions',),
    '_agent_workflow': ('AgentWorkflow',),
    '_approval_policy': ('ApprovalPolicy',),
    '_approval_rules': ('ApprovalRule',),
    '_decisions': ('DecisionRecord', 'PendingApproval', 'Vote'),
    '_data_converter': ('data_converter', 'with_data_converter'),
    '_durable_agent': ('DeferredNotifier', 'DurableAgent'),
    '_encryption': (
        'DecryptionError',
        'EncryptionCodec',
        'EncryptionKeyError',
        'encrypted_data_converter',
        'with_encryption',
    ),
    '_fingerprint': ('agent_fingerprint',),
    '_registry': ('get_agent', 'get_durable_agent', 'register_agent', 'registered_agents'),
    '_types': (
        'AgentRunInput',
        'AgentRunOutput',
        'ConversationMessage',
        'DeferredNotice',
        'HistoryHandoff',
        'MessagePage',
        'Rejection',
        'RunStatus',
    ),
    '_workflow_ids': ('conversation_workflow_id',),
}
_HOME = {name: module for module, names in _HOMES.items() for name in names}


def __getattr__(name: str) -> Any:
    """A public name, imported from its module on first use and kept here after."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    value = getattr(importlib.import_module(f'{__name__}.{module}'), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
