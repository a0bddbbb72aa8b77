"""The custom search attributes runs record, and how a worker decides whether its runs record them.

Runs record who they are and where they stand as search attributes, so a visibility query finds every run that
waits for a human across a namespace (`PendingApprovals > 0`, or `AgentState = 'awaiting_deferred_tools' AND
AgentOwner = 'alice'`). Temporal indexes only the attributes a namespace has registered, and a workflow that
upserts one the namespace lacks fails its workflow task, over and over. So a run must upsert only where the
attributes exist, and the answer must stay fixed for the run: replaying the run on another worker must issue the
same commands, even if the attributes were registered in between.

The design: the decision is a patch, `workflow.patched(RECORD_SEARCH_ATTRIBUTES)`, taken once as the run starts.
Temporal records a patch marker in the history when the patch is taken and the replay reads the marker back, so
the decision is the run's own, whatever the worker replaying it knows. Whether a new run takes the patch is the
worker's call, made through the SDK's patch activation callback (`SearchAttributeGate.activate`, experimental in
the SDK): the worker asks the namespace once, at start, through the operator service (`SearchAttributeGate.check`),
or is told (`build_worker(search_attributes=...)`, e.g. where a cloud account may not list them). A worker on a
namespace without the attributes logs one line saying how to register them, and its runs work as before, without
an inbox. Runs recorded before this existed have no marker and replay unchanged. (A bare `temporalio` `Worker`
has no callback, so its runs take the patch, as the SDK does by default: it needs the attributes registered.)

`AgentVersion` came later, so it is decided apart: a namespace registered before it keeps its inbox, and its runs
record their agent's version in their status only. The worker asks for it with the others and tells its runs through
the registry (`set_records_agent_version`); a new run reads it as it starts, and upserts `AgentVersion` with its
other attributes where the answer is yes (see `workflows._agent_version`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.common import SearchAttributeKey
from temporalio.service import RPCError
from temporalio.worker import PatchActivationInput

from ._registry import set_records_agent_version

__all__ = (
    'AGENT_NAME',
    'AGENT_OWNER',
    'AGENT_STATE',
    'AGENT_VERSION',
    'INBOX_ATTRIBUTES',
    'PENDING_APPROVALS',
    'RECORD_SEARCH_ATTRIBUTES',
    'SEARCH_ATTRIBUTES',
    'SearchAttributeGate',
    'dev_server_search_attribute_args',
    'missing_search_attributes',
)

AGENT_NAME = SearchAttributeKey.for_keyword('AgentName')
"""The registered name of the agent a run belongs to."""
AGENT_STATE = SearchAttributeKey.for_keyword('AgentState')
"""Where the run is: the `state` of its `status` query (`running`, `awaiting_deferred_tools`, `awaiting_message`,
`completed`, `failed`)."""
PENDING_APPROVALS = SearchAttributeKey.for_int('PendingApprovals')
"""How many tool calls of the run wait for a human's approval (also those a conversation's last turn ended on)."""
AGENT_OWNER = SearchAttributeKey.for_keyword('AgentOwner')
"""Who started the run (the `owner` of its input); unset when the input names no owner."""
AGENT_VERSION = SearchAttributeKey.for_keyword('AgentVersion')
"""The version of the run's agent it started on (`workflows.agent_fingerprint`, twelve hex characters)."""

INBOX_ATTRIBUTES: tuple[SearchAttributeKey[Any], ...] = (AGENT_NAME, AGENT_STATE, PENDING_APPROVALS, AGENT_OWNER)
"""The attributes runs record only where the namespace has all of them (the approvals inbox)."""

SEARCH_ATTRIBUTES: tuple[SearchAttributeKey[Any], ...] = (*INBOX_ATTRIBUTES, AGENT_VERSION)
"""Every custom search attribute runs record, which a namespace should have registered (`AgentVersion` is recorded
only where the others are, and runs work without it)."""

RECORD_SEARCH_ATTRIBUTES = 'agent-search-attributes'
"""The patch id under which a run records its decision to upsert the search attributes."""

REGISTER_HINT = 'python -m deploy.search_attributes --namespace {namespace}'

logger = logging.getLogger('workflows.search_attributes')


async def missing_search_attributes(
    client: Client, attributes: Sequence[SearchAttributeKey[Any]] = SEARCH_ATTRIBUTES
) -> list[str]:
    """The names of `attributes` the client's namespace has not registered with their type.

    Raises:
        RPCError: if the namespace's attributes cannot be listed (no operator access, server unreachable).
    """
    listed = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace)
    )
    existing = {**listed.system_attributes, **listed.custom_attributes}
    return [key.name for key in attributes if existing.get(key.name) != int(key.indexed_value_type)]


def dev_server_search_attribute_args(attributes: Sequence[SearchAttributeKey[Any]] = SEARCH_ATTRIBUTES) -> list[str]:
    """The dev server's `--search-attribute Name=Type` flags that register `attributes` on its namespaces."""
    args: list[str] = []
    for key in attributes:
        kind = ''.join(part.title() for part in key.indexed_value_type.name.split('_'))  # KEYWORD_LIST: KeywordList
        args += ['--search-attribute', f'{key.name}={kind}']
    return args


class SearchAttributeGate:
    """A worker's answer to "do new runs record the search attributes?", given to its runs as a patch decision.

    Args:
        enabled: `True` or `False` to decide without asking the namespace; `None` asks it in `check`.
        activate: the patch activation callback the worker was given for other patches, if any.
        task_queue: the worker's task queue, whose runs `check` tells (through the registry) whether they record
            `AgentVersion`.
    """

    def __init__(
        self,
        enabled: bool | None = None,
        activate: Callable[[PatchActivationInput], bool] | None = None,
        task_queue: str | None = None,
    ) -> None:
        self.enabled = enabled
        self.records_version = False
        """Whether new runs record `AgentVersion` (known after `check`)."""
        self._asked = enabled is not None
        self._activate_others = activate
        self._task_queue = task_queue

    async def check(self, client: Client) -> None:
        """Ask the namespace once whether it has the attributes; log one line saying what to do if not."""
        if not self._asked:
            self._asked = True
            await self._ask(client)
        elif self.enabled:
            # Told to record them: `AgentVersion` came later than the others, so a namespace may lack it alone.
            try:
                self.records_version = not await missing_search_attributes(client, (AGENT_VERSION,))
            except RPCError:
                self.records_version = False
        if self._task_queue is not None:
            set_records_agent_version(self._task_queue, bool(self.enabled) and self.records_version)

    async def _ask(self, client: Client) -> None:
        namespace = client.namespace
        try:
            missing = await missing_search_attributes(client)
        except RPCError as exc:
            self.enabled = False
            logger.warning(
                'Runs will not record search attributes (no approvals inbox): listing those of namespace %r '
                'failed (%s). If it has them, start the worker with search_attributes=True.',
                namespace,
                exc.message,
            )
            return
        self.enabled = not [name for name in missing if name != AGENT_VERSION.name]
        self.records_version = self.enabled and not missing
        if not self.enabled:
            logger.warning(
                'Runs will not record search attributes (no approvals inbox): namespace %r lacks %s. Register '
                'them with `%s` and restart the worker.',
                namespace,
                ', '.join(missing),
                REGISTER_HINT.format(namespace=namespace),
            )
        elif missing:
            logger.warning(
                'Runs will not record their agent version as a search attribute: namespace %r lacks AgentVersion. '
                'Register it with `%s` and restart the worker.',
                namespace,
                REGISTER_HINT.format(namespace=namespace),
            )

    def activate(self, patch: PatchActivationInput) -> bool:
        """The patch activation callback: whether a new run takes `patch` (only new runs ask; replays do not)."""
        if patch.patch_id == RECORD_SEARCH_ATTRIBUTES:
            return bool(self.enabled)
        return self._activate_others(patch) if self._activate_others is not None else True
