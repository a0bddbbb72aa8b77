"""The capabilities guide's examples give the same result in-process and as `AgentWorkflow` on a dev server.

Each case runs one agent both ways and compares the output, the usage, the new messages (with timestamps and
run/conversation ids normalized; tool call ids are fixed by the scripted models), what the case's hooks and
model recorded, and what they printed. The cases live in `_parity_feature_cases.py` and `_parity_hook_cases.py`,
the way to run one durably in `_parity_harness.py`.

Where a durable run differs by design it is stated in the case (`durable_observed`): a tool activity that
raises is retried by Temporal, so its error hooks run once per attempt. (Model-request and tool-execute hooks
run in activities on the run's own `for_run` instance, as in-process.)
"""

from __future__ import annotations

import pytest
from temporalio.client import Client, WorkflowFailureError
from temporalio.exceptions import ActivityError, ApplicationError

from agent.usage import RunUsage

from ._parity_feature_cases import (
    knows_current_time,
    log_tool_calls,
    math_tools,
    prepare_tools_case,
    thinking,
    thinking_on_retry,
)
from ._parity_harness import SAME, Case, normalized, run_durably
from ._parity_hook_cases import (
    audited_capability,
    error_logger_model,
    error_logger_tool,
    hooks,
    max_model_requests,
    node_logger,
    pii_redaction,
    request_counter,
    verbose_logging,
)

pytestmark = pytest.mark.asyncio(loop_scope='session')

CASES = [
    math_tools(),
    log_tool_calls(),
    knows_current_time(),
    thinking_on_retry(),
    node_logger(),
    max_model_requests(),
    prepare_tools_case('capability'),
    prepare_tools_case('prepare_tools_capability'),
    error_logger_model(),
    error_logger_tool(),
    audited_capability(),
    request_counter(),
    pii_redaction(),
    verbose_logging(),
    thinking(),
    hooks(),
]


@pytest.mark.parametrize('case', CASES, ids=[case.name.removeprefix('parity_') for case in CASES])
async def test_guide_example_gives_the_same_run_in_process_and_durably(
    case: Case, client: Client, task_queue: str, capsys: pytest.CaptureFixture[str]
) -> None:
    case.reset()
    capsys.readouterr()
    if case.fails is not None:
        with pytest.raises(case.fails) as raised:
            await case.agent.run(case.prompt)
        in_process_observed = case.observe()
        in_process_printed = capsys.readouterr().out

        case.reset()
        with pytest.raises(WorkflowFailureError) as failure:
            await run_durably(client, task_queue, case)
        activity_error = failure.value.cause
        assert isinstance(activity_error, ActivityError)
        cause = activity_error.cause
        assert isinstance(cause, ApplicationError)
        assert (cause.type, cause.message) == (type(raised.value).__name__, str(raised.value))
    else:
        local = await case.agent.run(case.prompt)
        in_process_observed = case.observe()
        in_process_printed = capsys.readouterr().out

        case.reset()
        durable = await run_durably(client, task_queue, case)
        assert local.output == case.output
        assert durable.output == local.output
        assert normalized(durable.new_messages) == normalized(local.new_messages())
        assert durable.usage == local.usage()
        assert durable.usage != RunUsage()

    assert in_process_observed == case.observed
    expected_durable = case.observed if case.durable_observed is SAME else case.durable_observed
    assert case.observe() == expected_durable
    assert in_process_printed == case.printed
    assert capsys.readouterr().out == case.printed
