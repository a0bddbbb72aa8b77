"""How `agents run --watch` / `agents watch` print a run's progress: each part once, however often polled."""

from __future__ import annotations

from agent._parts import ModelRequest, ModelResponse, RetryPromptPart, SystemPromptPart, TextPart, UserPromptPart
from agent._tool_parts import ToolCallPart, ToolReturnPart
from agent.usage import RequestUsage
from doors.cli._output import plural
from doors.cli._progress import Progress

ASKING = ModelResponse(
    parts=[ToolCallPart('delete_file', {'path': 'a.txt'}, 'del-a')],
    usage=RequestUsage(input_tokens=1, output_tokens=7),
    model_name='test',
)
ANSWERED = ModelRequest(
    parts=[
        ToolReturnPart('delete_file', 'deleted a.txt', 'del-a'),
        ToolReturnPart('delete_file', 'Keep b', 'del-b', outcome='denied'),
        RetryPromptPart('x must be an int', tool_name='count', tool_call_id='c-1'),
    ]
)


def test_each_request_tool_call_result_and_text_is_printed_once_as_the_run_grows() -> None:
    progress = Progress()
    # Before the agent sends its first request, the run shows the user prompt alone.
    assert progress.lines([ModelRequest(parts=[UserPromptPart('Clean up')])]) == ['user: Clean up']
    first = ModelRequest(parts=[SystemPromptPart('Be careful.'), UserPromptPart('Clean up')])
    assert progress.lines([first, ASKING]) == [
        'model request 1 (test): 1 input token, 7 output tokens',
        '  tool call delete_file({"path": "a.txt"})  [del-a]',
    ]
    assert progress.lines([first, ASKING]) == []  # polled again: nothing new
    done = ModelResponse(parts=[TextPart('Done:\nall clean.')])
    assert progress.lines([ASKING, ANSWERED, done], offset=progress.next_index - 1) == [
        '  delete_file returned: deleted a.txt  [del-a]',
        '  delete_file denied: Keep b  [del-b]',
        '  retry count: x must be an int Fix the errors and try again.',
        'model request 2: 0 input tokens, 0 output tokens',
        '  text: Done:',
        '        all clean.',
    ]


def test_plural_says_one_thing_and_many_things() -> None:
    assert [plural(n, 'tool call') for n in (0, 1, 2)] == ['0 tool calls', '1 tool call', '2 tool calls']
