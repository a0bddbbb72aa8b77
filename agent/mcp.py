"""MCP servers as agent toolsets: connect to a server over stdio or HTTP and offer its tools to the model.

```python
from agent import Agent
from agent.mcp import MCPServerStdio, MCPServerStreamableHTTP

time_server = MCPServerStdio('mcp-server-time', [], tool_prefix='time')
docs_server = MCPServerStreamableHTTP('http://localhost:8000/mcp')
agent = Agent('openai:gpt-5.2', toolsets=[time_server, docs_server])
```

An agent run enters its toolsets, which connects to each server for the run; entering a server yourself
(`async with server:`) keeps one connection across runs. A connection that died (the server process exited,
the HTTP stream dropped) is replaced by the next operation. Besides tools, a server offers resources
(`list_resources`, `list_resource_templates`, `read_resource`), prompts (`list_prompts` returning `Prompt`s,
`get_prompt` a `PromptResult`) and instructions (`get_instructions`, with `include_instructions=True`). While
connected it may ask the client to sample from a model (served by `sampling_model`, or by the model of the run
using the server), to elicit input from the user (`elicitation_callback`), and it may send log messages
(`log_handler`). `load_mcp_servers` and `load_mcp_toolsets` build servers from an `mcpServers` JSON file.

A tool's result is its structured content when it has some (a value the MCP SDK wrapped as `{"result": value}`
is unwrapped), otherwise its content blocks: text (parsed when it holds a JSON object or array), images and
audio as `BinaryContent`, resources read.

Errors: a failing tool call raises `ModelRetry` (the model sees the message and may try again); a server
error in any other request raises `MCPError`, as does a lost connection; misuse (e.g. reading
`server_info` of a server that is not running) raises `UserError`.

Durable execution
-----------------
In a durable run (`worker.build_worker`) every server needs an `id` (a server's `tool_prefix` serves as its id
unless one is given); a worker refuses an agent whose server has none. The workflow never connects: it lists a
server's tools with the activity `agent.<agent>.toolset.<id>.list_tools` once per workflow run (replay-safe, as
the list comes from the run's own history) and calls them through the agent's tool activity. On the worker, every
activity uses one live connection per server id (`agent._mcp.MCPConnectionPool`), kept open between activities,
reconnected (the process restarted) if the server died, and closed when the worker stops.

The network operations are separate methods taking and returning plain data, so they can run anywhere:
`list_tools`, `direct_call_tool`, `fetch_instructions`, `list_resources`, `list_resource_templates`,
`read_resource`, `list_prompts` and `get_prompt`. Tools that read resources or prompts do so inside their
activity. `tool_prefix` and `process_tool_call` apply on the worker, where the tool runs.

Sampling and elicitation requests arrive during the tool activity that triggered them and are answered on the
worker: sampling by the server's `sampling_model`, else the run's model (the agent's own unless the run's input names
another); elicitation by the server's `elicitation_callback`. A callback that needs a person should not block the
activity: have the tool raise `ApprovalRequired` or `CallDeferred` instead, which a durable run waits for durably.
"""

from __future__ import annotations

from ._mcp._config import MCPServerConfig, load_mcp_servers, load_mcp_toolsets
from ._mcp._prompts import (
    ContentBlock,
    EmbeddedResource,
    Prompt,
    PromptArgument,
    PromptMessage,
    PromptResult,
    PromptRole,
    ResourceLink,
)
from ._mcp._server import MCPServer
from ._mcp._transports import MCPServerHTTP, MCPServerSSE, MCPServerStdio, MCPServerStreamableHTTP
from ._mcp._types import (
    BaseResource,
    CallToolFunc,
    ElicitationFnT,
    Icon,
    InstructionPart,
    LoggingFnT,
    MCPError,
    ProcessToolCallback,
    Resource,
    ResourceAnnotations,
    ResourceTemplate,
    ServerCapabilities,
    ToolResult,
)

__all__ = (
    'BaseResource',
    'CallToolFunc',
    'ContentBlock',
    'ElicitationFnT',
    'EmbeddedResource',
    'Icon',
    'InstructionPart',
    'LoggingFnT',
    'MCPError',
    'MCPServer',
    'MCPServerConfig',
    'MCPServerHTTP',
    'MCPServerSSE',
    'MCPServerStdio',
    'MCPServerStreamableHTTP',
    'ProcessToolCallback',
    'Prompt',
    'PromptArgument',
    'PromptMessage',
    'PromptResult',
    'PromptRole',
    'Resource',
    'ResourceAnnotations',
    'ResourceLink',
    'ResourceTemplate',
    'ServerCapabilities',
    'ToolResult',
    'load_mcp_servers',
    'load_mcp_toolsets',
)
