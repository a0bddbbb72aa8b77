"""The worker's workflow runner: the sandbox, plus what the worker learns between activations.

`AgentWorkflowRunner` wraps the sandboxed runner (`temporalio.worker.WorkflowRunner` and `WorkflowInstance` are
the SDK's public extension points) and does two things outside the sandbox:

- After each successful activation that is not a replay it asks the run whether it now waits only for a person
  (the predicate the workflow registered with `workflows._eviction.watch_waiting`) and, if so, tells the worker,
  which drops the run from its cache once the completion is sent (see `workflows._eviction`). Replaying activations
  are left alone (except one that only answers queries, after which the run is evicted once no query has come for
  a while): an evicted run replays through its waiting point on the way to the answer that woke it, and evicting it
  there would only start the replay over.
- It answers the SDK's per-payload question "which serialization context does this payload belong to?" without
  entering the sandbox, when the worker's data converter ignores contexts. The SDK asks once for every payload it
  decodes into an activation and encodes out of a completion, and the sandboxed instance answers by running code
  inside the sandbox (an `exec` with its import hooks applied) on the worker's event loop thread. Under a burst of
  a thousand approvals that was over a third of the event loop's time, time in which activities could not send
  their heartbeats. The runtime's converter (pydantic JSON, compression, encryption) is the same whatever the
  context, so with it (and no external payload storage) the workflow's own context is the right answer for
  every payload; a converter that does use contexts gets the sandbox's answer as before.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import temporalio.converter
import temporalio.workflow
from temporalio.bridge.proto.workflow_activation import WorkflowActivation
from temporalio.bridge.proto.workflow_completion import WorkflowActivationCompletion
from temporalio.converter import (
    ActivitySerializationContext,
    DataConverter,
    StorageDriverStoreContext,
    WorkflowSerializationContext,
)
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner

from ._eviction import WAITING_EXTERN, ActivationOutcome

__all__ = ('AgentWorkflowRunner', 'ignores_contexts')


def ignores_contexts(converter: DataConverter) -> bool:
    """Whether `converter` encodes and decodes the same whatever serialization context it is given."""
    probes = (
        WorkflowSerializationContext(namespace='probe', workflow_id='probe'),
        ActivitySerializationContext(
            namespace='probe',
            workflow_id='probe',
            workflow_type='probe',
            activity_type='probe',
            activity_id='probe',
            activity_task_queue='probe',
            is_local=False,
        ),
    )
    return converter.external_storage is None and all(converter.with_context(probe) is converter for probe in probes)


class _Watch:
    """The "waits for a person" predicate one workflow instance registered, if any."""

    __slots__ = ('predicate',)

    def __init__(self) -> None:
        self.predicate: Callable[[], bool] | None = None

    def register(self, predicate: Callable[[], bool]) -> None:
        self.predicate = predicate


class AgentWorkflowRunner(WorkflowRunner):
    """`inner` (the sandbox), telling `waiting` of runs left waiting for a person, with cheap serialization contexts.

    Args:
        inner: The runner that runs the workflows.
        waiting: Called with the workflow id, the run id and what the activation left the run doing (see
            `workflows._eviction.ActivationOutcome`), from the workflow task's thread, after each successful
            activation that is not a replay; `None` to not watch.
        context_free: The worker's data converter ignores serialization contexts (`ignores_contexts`).
    """

    def __init__(
        self,
        inner: WorkflowRunner,
        *,
        waiting: Callable[[str, str, ActivationOutcome], None] | None = None,
        context_free: bool = False,
    ) -> None:
        self._inner = inner
        self._waiting = waiting
        self._context_free = context_free

    def prepare_workflow(self, defn: temporalio.workflow._Definition) -> None:
        self._inner.prepare_workflow(defn)

    def set_worker_level_failure_exception_types(self, types: Sequence[type[BaseException]]) -> None:
        self._inner.set_worker_level_failure_exception_types(types)

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        watch = _Watch()
        if self._waiting is not None:
            det = dataclasses.replace(det, extern_functions={**det.extern_functions, WAITING_EXTERN: watch.register})
        own = (
            WorkflowSerializationContext(namespace=det.info.namespace, workflow_id=det.info.workflow_id)
            if self._context_free
            else None
        )
        return _Instance(self._inner.create_instance(det), det.info.workflow_id, watch, self._waiting, own)


def _only_queries(act: WorkflowActivation) -> bool:
    # A query answered after a replay comes in an activation of its own, marked as replaying; it changes nothing.
    return bool(act.jobs) and all(job.HasField('query_workflow') for job in act.jobs)


def _holds(predicate: Callable[[], bool]) -> bool:
    # Eviction only saves memory: a predicate that fails must never fail the workflow task.
    try:
        return predicate()
    except Exception:
        return False


class _Instance(WorkflowInstance):
    def __init__(
        self,
        inner: WorkflowInstance,
        workflow_id: str,
        watch: _Watch,
        waiting: Callable[[str, str, ActivationOutcome], None] | None,
        own_context: WorkflowSerializationContext | None,
    ) -> None:
        self._inner = inner
        self._workflow_id = workflow_id
        self._watch = watch
        self._waiting = waiting
        self._own_context = own_context

    def activate(self, act: WorkflowActivation) -> WorkflowActivationCompletion:
        completion = self._inner.activate(act)
        predicate = self._watch.predicate
        if self._waiting is None or predicate is None or not completion.HasField('successful'):
            return completion
        queries = _only_queries(act)
        if act.is_replaying and not queries:
            return completion  # catching up with history: the run is where it was
        state: ActivationOutcome
        if any(job.HasField('remove_from_cache') for job in act.jobs):
            state = 'evicted'
        elif not _holds(predicate):
            state = 'working'
        else:
            state = 'queried' if queries else 'waiting'
        self._waiting(self._workflow_id, act.run_id, state)
        return completion

    def get_serialization_context(self, command_info: object) -> temporalio.converter.SerializationContext | None:
        if self._own_context is not None:
            return self._own_context
        return self._inner.get_serialization_context(command_info)  # pyright: ignore[reportArgumentType]

    def get_external_store_context(self, command_info: object) -> StorageDriverStoreContext:
        if self._own_context is not None:
            return StorageDriverStoreContext(target=None)  # unused: the converter has no external storage
        return self._inner.get_external_store_context(command_info)  # pyright: ignore[reportArgumentType]

    def get_info(self) -> temporalio.workflow.Info:
        return self._inner.get_info()

    def get_thread_id(self) -> int | None:
        return self._inner.get_thread_id()
