"""`agent_fingerprint`: a short digest of what makes an agent behave as it does, its version.

A run records the fingerprint of its agent (the `AgentVersion` search attribute as it starts, and
`RunStatus.agent_version` from its first model response, see `workflows._agent_version`), so an operator sees which
runs started on which version of an agent. It is a digest of the agent's parts, each described as canonical JSON:

- `instructions`: static text, templates, and the code of instruction functions;
- `tools`: the agent's own tools (name, description, parameter schema, approval, timeouts, retries, the code of the
  function, its `prepare` and its arguments validator), its `prepare_tools` and its native tools;
- `toolsets`: its other toolsets, with their tools where they are known before a run (a function toolset's, an
  external toolset's definitions; for a dynamic toolset, the code that builds it; for a server, its settings);
- `capabilities`: each capability's type and configuration, which hooks it defines, split into the workflow-side
  and activity-side halves of a durable run, and the code of the hooks a capability class of the agent's defines;
- `output`: the output type's JSON schema, output functions and validators, the output retries and end strategy;
- `model`: the model's name and settings, and the agent's model settings;
- `run`: the deps type's schema, the tool retries and the run metadata;
- `approval`: the durable agent's approval rules, roles and approval policy;
- `durable`: its other durable options (activity timeouts and retries, tool result and fan-out limits).

Code is described by its bytecode, constants and names, never its source text or address: a function reformatted,
commented, moved down a file or renamed keeps its digest, and so does every process with any `PYTHONHASHSEED`
(frozen sets of constants are sorted). A function's description includes its defaults, what its closure holds,
and what it reads from its module: the functions defined there (followed in turn) and its constants (UPPER_CASE
names bound to plain values). The runtime's own code (`agent`, `activities`, `workflows`) is named, not hashed: a
change of it is a new build of the worker (`worker.code_build_id`), not a new version of the agent. Bytecode
differs between Python versions, so a Python upgrade gives every agent a new fingerprint.

What does not change behaviour is left out: the order of a mapping's keys or of a toolset's tools, object ids,
the agent's name, instrumentation and event stream handler. An object this module does not know is described by
its type and its public attributes of plain values (a connection or a lock adds nothing that varies).
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import json
import logging
import types
from collections.abc import Mapping
from datetime import timedelta
from pathlib import PurePath
from typing import Any

import pydantic

from agent import Agent, UserError
from agent._template import TemplateStr
from agent._tool import Tool
from agent.capabilities import AbstractCapability
from agent.capabilities._sides import hook_side
from agent.models import Model
from agent.toolsets import AbstractToolset, DynamicToolset, ExternalToolset, FunctionToolset

from ._durable_agent import DurableAgent

__all__ = ('FINGERPRINT_LENGTH', 'agent_fingerprint', 'fingerprint_parts')

FINGERPRINT_LENGTH = 12
"""Hex characters of a fingerprint (as many as `worker.code_build_id`'s)."""

_RUNTIME_PACKAGES = ('agent', 'activities', 'workflows')
_MAX_DEPTH = 24
_PLAIN = (str, int, float, bool, type(None))

logger = logging.getLogger('workflows.fingerprint')


def agent_fingerprint(agent: Agent[Any, Any] | DurableAgent) -> str:
    """The agent's version: twelve hex characters that change exactly when a part that changes a run's behaviour
    does (see the module's docstring for the parts), the same in every process."""
    parts = fingerprint_parts(agent)
    digest = hashlib.blake2b(digest_size=FINGERPRINT_LENGTH // 2)
    for name in sorted(parts):
        digest.update(f'{name}={parts[name]}\n'.encode())
    return digest.hexdigest()


def fingerprint_parts(agent: Agent[Any, Any] | DurableAgent) -> dict[str, str]:
    """The digest of each part of the agent's fingerprint, by part name: which part differs between two versions."""
    durable = agent if isinstance(agent, DurableAgent) else DurableAgent(agent)
    digests: dict[str, str] = {}
    for name, value in _parts(durable).items():
        try:
            digests[name] = _digest(_Describer().describe(value))
        except Exception as exc:  # never fail a worker's start over its agents' version: say what went wrong
            logger.warning('The %s part of an agent version could not be read (%r): it stays the same', name, exc)
            digests[name] = _digest(['unreadable', type(exc).__qualname__])
    return digests


def _parts(durable: DurableAgent) -> dict[str, Any]:
    agent = durable.agent
    own, *toolsets = agent.toolsets
    return {
        'instructions': [agent._instructions, agent._system_prompts],
        'tools': [own, agent._prepare_tools, agent._native_tools],
        'toolsets': toolsets,
        'capabilities': agent.capabilities,
        'output': {
            'schema': _output_schema(agent),
            'type': agent.output_type,
            'validators': [v.function for v in agent._output_validators],
            'retries': agent._max_result_retries,
            'end_strategy': agent.end_strategy,
            'prepare_output_tools': agent._prepare_output_tools,
        },
        'model': {'model': agent.model, 'settings': agent.model_settings},
        'run': {
            'deps': _type_schema(agent.deps_type),
            'tool_retries': agent._default_retries,
            'metadata': agent._metadata,
            'validation_context': agent._validation_context,
        },
        'approval': {'rules': durable.approval_rules, 'roles': durable.roles, 'policy': durable.approval_policy},
        'durable': {
            'model_activity': durable.model_activity,
            'tool_activity': durable.tool_activity,
            'tool_activities': durable.tool_activities,
            'notifier': durable.notifier,
            'max_tool_result_bytes': durable.max_tool_result_bytes,
            'max_tool_calls_in_flight': durable.max_tool_calls_in_flight,
            'max_tool_calls_per_response': durable.max_tool_calls_per_response,
        },
    }


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(',', ':'), ensure_ascii=False, allow_nan=True)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _output_schema(agent: Agent[Any, Any]) -> Any:
    try:
        return agent.output_json_schema()
    except Exception:  # an output type without a schema (text, images): its description below still counts
        return None


def _type_schema(tp: Any) -> Any:
    if tp is type(None):
        return None
    try:
        return pydantic.TypeAdapter(tp).json_schema()
    except Exception:  # not a type pydantic knows: its name stands for it
        return _name(tp)


def _name(obj: Any) -> str:
    return f'{getattr(obj, "__module__", "?")}.{getattr(obj, "__qualname__", type(obj).__qualname__)}'


def _is_runtime(module: str | None) -> bool:
    return module is not None and module.split('.')[0] in _RUNTIME_PACKAGES


class _Describer:
    """Turns an object into canonical JSON data; one per part, so a cycle is cut only where it closes."""

    def __init__(self) -> None:
        self._stack: set[int] = set()

    def describe(self, value: Any) -> Any:
        if isinstance(value, _PLAIN):
            return repr(value) if isinstance(value, float) else value
        if len(self._stack) >= _MAX_DEPTH:
            return ['too-deep', type(value).__qualname__]
        if id(value) in self._stack:
            return ['cycle', type(value).__qualname__]
        self._stack.add(id(value))
        try:
            return self._describe(value)
        finally:
            self._stack.discard(id(value))

    def _describe(self, value: Any) -> Any:
        d = self.describe
        if isinstance(value, bytes):
            return ['bytes', value.hex()]
        if isinstance(value, enum.Enum):
            return ['enum', _name(type(value)), d(value.value)]
        if isinstance(value, Mapping):
            items = [[d(k), d(v)] for k, v in value.items()]
            return ['map', sorted(items, key=_canonical)]
        if isinstance(value, list | tuple):
            return [d(item) for item in value]
        if isinstance(value, set | frozenset):
            return ['set', sorted((d(item) for item in value), key=_canonical)]
        if isinstance(value, timedelta):
            return ['timedelta', value.total_seconds()]
        if isinstance(value, PurePath):
            return ['path', str(value)]
        if isinstance(value, TemplateStr):
            return ['template', value.template]
        if isinstance(value, types.FunctionType):
            return self._function(value)
        if isinstance(value, types.MethodType):
            return ['method', d(value.__func__), d(value.__self__)]
        if isinstance(value, functools.partial):
            return ['partial', d(value.func), d(value.args), d(value.keywords)]
        if isinstance(value, type):
            return ['type', _name(value)]
        if isinstance(value, Tool):
            return self._tool(value)
        if isinstance(value, AbstractToolset):
            return self._toolset(value)
        if isinstance(value, AbstractCapability):
            return self._capability(value)
        if isinstance(value, Model):
            return ['model', value.label, d(value.settings)]
        if isinstance(value, pydantic.BaseModel):
            return ['pydantic', _name(type(value)), d(value.model_dump(mode='python'))]
        if dataclasses.is_dataclass(value):
            fields = {f.name: d(getattr(value, f.name, None)) for f in dataclasses.fields(value) if f.compare}
            return ['dataclass', _name(type(value)), fields]
        if isinstance(value, types.BuiltinFunctionType | types.MethodWrapperType):
            return ['builtin', _name(value)]
        return ['object', _name(type(value)), self._plain_attributes(value)]

    def _function(self, fn: types.FunctionType) -> Any:
        if _is_runtime(fn.__module__):
            return ['runtime', _name(fn)]  # the worker's build id stands for the runtime's code
        d = self.describe
        closure = []
        for cell in fn.__closure__ or ():
            try:
                closure.append(d(cell.cell_contents))
            except ValueError:  # a cell not filled yet
                closure.append(['empty'])
        return [
            'function',
            _code(fn.__code__),
            d(fn.__defaults__),
            d(fn.__kwdefaults__),
            closure,
            self._module_reads(fn),
        ]

    def _module_reads(self, fn: types.FunctionType) -> dict[str, Any]:
        """What `fn` reads from its module that is part of its behaviour: functions defined there, constants."""
        reads: dict[str, Any] = {}
        for name in sorted(_global_names(fn.__code__)):
            value = fn.__globals__.get(name)
            same_module = isinstance(value, types.FunctionType) and value.__module__ == fn.__module__
            if same_module or (name.isupper() and _is_plain(value)):
                reads[name] = self.describe(value)
        return reads

    def _tool(self, tool: Tool[Any]) -> Any:
        d = self.describe
        return {
            'name': tool.name,
            'description': tool.description,
            'parameters': d(tool.function_schema.json_schema),
            'return_schema': d(tool.function_schema.return_schema),
            'requires_approval': tool.requires_approval,
            'strict': tool.strict,
            'sequential': tool.sequential,
            'timeout': d(tool.timeout),
            'max_retries': tool.max_retries,
            'metadata': d(tool.metadata),
            'defer_loading': tool.defer_loading,
            'include_return_schema': tool.include_return_schema,
            'function': d(tool.function),
            'prepare': d(tool.prepare),
            'args_validator': d(tool.args_validator),
        }

    def _toolset(self, toolset: AbstractToolset[Any]) -> Any:
        d = self.describe
        kind = _name(type(toolset))
        if isinstance(toolset, FunctionToolset):
            config = {
                'id': toolset.id,
                'max_retries': toolset.max_retries,
                'timeout': d(toolset.timeout),
                'requires_approval': toolset.requires_approval,
                'instructions': d(toolset._instructions),
                'defer_loading': toolset._defer_loading,
            }
            return ['toolset', kind, config, d(toolset.tools)]
        if isinstance(toolset, ExternalToolset):
            tools = {tool_def.name: d(tool_def) for tool_def in toolset.tool_defs}
            return ['toolset', kind, {'id': toolset.id, 'max_retries': toolset.max_retries}, d(tools)]
        if isinstance(toolset, DynamicToolset):
            config = {'id': toolset.id, 'per_run_step': toolset.per_run_step}
            return ['toolset', kind, config, d(toolset.toolset_func)]
        if dataclasses.is_dataclass(toolset):  # the wrappers: what they wrap and how
            fields = {f.name: d(getattr(toolset, f.name, None)) for f in dataclasses.fields(toolset) if f.compare}
            return ['toolset', kind, fields]
        # A toolset that knows its tools only at run time (an MCP server): its settings and its functions.
        return ['toolset', kind, {'id': toolset.id}, self._plain_attributes(toolset, functions=True)]

    def _capability(self, capability: AbstractCapability[Any]) -> Any:
        d = self.describe
        cls = type(capability)
        config: dict[str, Any] = {}
        if dataclasses.is_dataclass(capability):
            config = {f.name: d(getattr(capability, f.name, None)) for f in dataclasses.fields(capability) if f.compare}
        else:
            config = self._plain_attributes(capability, functions=True)
        hooks = sorted(capability.hook_names())
        try:
            sides = {'workflow': [h for h in hooks if hook_side(capability, h) == 'workflow']}
        except UserError:  # misplaced `hook_sides`, which the worker refuses at start-up
            sides = {'workflow': ['invalid']}
        sides['activity'] = [h for h in hooks if h not in sides['workflow']]
        # The class's own methods (hooks, `get_*` configuration) are its behaviour, as a function's code is.
        methods = {
            name: d(member)
            for klass in cls.__mro__
            if not _is_runtime(klass.__module__) and klass is not object
            for name, member in sorted(vars(klass).items())
            if isinstance(member, types.FunctionType) and not name.startswith('__')
        }
        return ['capability', _name(cls), config, sides, methods]

    def _plain_attributes(self, value: Any, *, functions: bool = False) -> dict[str, Any]:
        """The public attributes of plain values (or lists and mappings of them), and with `functions` the public
        attributes that are functions: what configures an object this module does not know."""
        attributes: dict[str, Any] = {}
        names = list(getattr(value, '__dict__', {}))
        for cls in type(value).__mro__:
            names += [n for n in getattr(cls, '__slots__', ()) if isinstance(n, str)]
        for name in sorted(set(names)):
            if name.startswith('_'):
                continue
            attribute = getattr(value, name, None)
            if _is_plain(attribute) or (functions and isinstance(attribute, types.FunctionType | types.MethodType)):
                attributes[name] = self.describe(attribute)
        return attributes


def _is_plain(value: Any) -> bool:
    if isinstance(value, (*_PLAIN, bytes, enum.Enum, timedelta, PurePath)):
        return True
    if isinstance(value, list | tuple | set | frozenset):
        return all(_is_plain(item) for item in value)
    if isinstance(value, dict):
        return all(_is_plain(k) and _is_plain(v) for k, v in value.items())
    return False


def _code(code: types.CodeType) -> list[Any]:
    """The code object's behaviour: its bytecode, constants, names and signature, not its file, lines or name."""
    return [
        code.co_code.hex(),  # the unspecialized bytecode, whatever the interpreter has specialized since
        [_constant(c) for c in code.co_consts],
        list(code.co_names),
        list(code.co_varnames),
        list(code.co_freevars),
        list(code.co_cellvars),
        [code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount, code.co_flags],
    ]


def _constant(value: Any) -> Any:
    if isinstance(value, types.CodeType):
        return ['code', _code(value)]
    if isinstance(value, tuple):
        return ['tuple', [_constant(item) for item in value]]
    if isinstance(value, frozenset):  # iterated in an order that depends on the hash seed
        return ['frozenset', sorted((_constant(item) for item in value), key=_canonical)]
    if isinstance(value, bytes):
        return ['bytes', value.hex()]
    if isinstance(value, float | complex) or value is Ellipsis:
        return [type(value).__name__, repr(value)]
    return value


def _global_names(code: types.CodeType) -> set[str]:
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _global_names(constant)
    return names


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(',', ':'), default=repr)
