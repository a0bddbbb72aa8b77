"""`Agent`, the class every run starts from; `agent.agent.spec` describes agents as data."""

from agent._abstract_agent import AbstractAgent
from agent._agent import (
    Agent,
    AgentRetries,
    EndStrategy,
    EventStreamHandler,
    EventStreamProcessor,
    capture_run_messages,
)
from agent._agent_graph import CallToolsNode, ModelRequestNode, UserPromptNode
from agent._instrumentation import InstrumentationSettings
from agent._tool import NativeToolFunc, ToolsPrepareFunc
from agent._wrapper_agent import WrapperAgent
from agent.capabilities import AgentModelSettings
from agent.run import AgentRun, AgentRunResult

__all__ = (
    'AbstractAgent',
    'Agent',
    'AgentModelSettings',
    'AgentRetries',
    'AgentRun',
    'AgentRunResult',
    'CallToolsNode',
    'EndStrategy',
    'EventStreamHandler',
    'EventStreamProcessor',
    'InstrumentationSettings',
    'ModelRequestNode',
    'NativeToolFunc',
    'ToolsPrepareFunc',
    'UserPromptNode',
    'WrapperAgent',
    'capture_run_messages',
)
