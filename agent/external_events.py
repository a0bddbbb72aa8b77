"""Waiting inside a run for an answer that something outside the run delivers, by a resume token.

`wait_for_external_event` creates a token and calls `ask` with it once. `ask` either answers at once (a terminal
prompt, a policy) by returning the payload, or hands the token to whoever will answer (a chat message, an email, a
database row) and returns `None`; the wait then lasts until code elsewhere resolves the token with
`resolve_external_event` or fails it with `fail_external_event`. `RequestInput` (`agent.capabilities`) is built on
it. Payloads travel in their JSON form whichever way they come, so a wait returns the same value in process as
through a durable engine.

Where the wait happens:

- **In process** (a run with in-process ports, or code outside any run): the token is a random URL-safe string,
  the waits still pending are kept in a registry of this process, and a resolver on any thread or event loop ends
  one. The wait lives as long as the process does.
- **In a durable run**, the engine supplies the wait, so that it is recorded in the run's history and survives
  restarts. Until an engine installs a waiter, a wait in a durable run is refused with `UserError`: unrecorded, it
  would ask again on replay and could get another answer than the one the run already acted on.

Hook points for a durable engine (`workflows/` and `activities/` here):

1. Subclass `ExternalEventWaiter` and enter `external_event_scope(waiter)` around each durable run (in the workflow,
   around `agent.iter(...)`, next to `use_ports`). Every wait in the run then calls
   `waiter.wait(name, ask=..., timeout=...)`, which must create a token (e.g. encoding the workflow id and a key
   for the wait, resolved by a signal or update), call `ask(token)` once as a recorded unit (the `ask` it gets
   already marks itself a durable unit and returns the JSON form of the answer, or `None`), return that answer if
   there is one, and otherwise wait durably for the resolution, raising `ExternalEventError` on failure or when
   `timeout` elapses. A replay must return the recorded outcome without calling `ask` again. Two keywords extend
   Pydantic AI's signature: `validate` (refuse a resolution's payload at the door, so a bad one never reaches
   the run's history and the wait goes on) and `credit` (put who resolved the wait into the payload); a waiter
   that does not take them still works, and the payload is then checked once the wait returns it.
2. Enter `agent._durable_unit.durable_unit_scope()` around the body of every unit that runs user code (tool calls
   and model requests in activities), so that a wait started there is refused with `UserError` rather than held
   inside an activity.
3. Without step 1, `RunPorts.waits_in_process` decides: only `DirectPorts` say yes, so a workflow's ports refuse.
"""

from ._external_events import (
    ExternalEventError,
    ExternalEventWaiter,
    external_event_scope,
    fail_external_event,
    resolve_external_event,
    wait_for_external_event,
)

__all__ = (
    'ExternalEventError',
    'ExternalEventWaiter',
    'external_event_scope',
    'fail_external_event',
    'resolve_external_event',
    'wait_for_external_event',
)
