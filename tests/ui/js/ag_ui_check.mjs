// Checks an AG-UI event stream with the protocol's own client library, @ag-ui/client.
//
// Reads an SSE body (what our server sent) on stdin and prints one JSON object on stdout:
//   events:     the events that passed the client's verifier, in order (parsed from the `data:` lines by
//               transformHttpEventStream, then enforceEvents, transformChunks and verifyEvents, the same
//               stages HttpAgent runs)
//   error:      the verifier's or parser's error message, or null when the whole sequence was accepted
//   agent:      what a real HttpAgent made of the same body (fetch is replaced, nothing leaves the process):
//               its messages, state, pending interrupts and the run's outcome, or its error
//
// Run from the repository root so that node_modules resolves: `node tests/ui/js/ag_ui_check.mjs < body.sse`.
import { HttpAgent, enforceEvents, transformChunks, transformHttpEventStream, verifyEvents } from '@ag-ui/client';
import { asapScheduler, lastValueFrom, scheduled, tap, toArray } from 'rxjs';

async function readStdin() {
  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

function errorMessage(error) {
  return error instanceof Error ? error.message : String(error);
}

async function verify(body) {
  const events = [];
  // Scheduled, not synchronous: the transform subscribes to the headers and the body separately, as it does on
  // a real response, and a synchronous source would be drained by the first subscription alone.
  const http$ = scheduled([
    { type: 'headers', status: 200, headers: new Headers({ 'content-type': 'text/event-stream' }) },
    { type: 'data', data: body },
  ], asapScheduler);
  try {
    await lastValueFrom(
      transformHttpEventStream(http$).pipe(
        enforceEvents(),
        transformChunks(),
        verifyEvents(),
        tap((event) => events.push(event)),
        toArray(),
      ),
    );
    return { events, error: null };
  } catch (error) {
    return { events, error: errorMessage(error) };
  }
}

async function runAgent(body) {
  const agent = new HttpAgent({
    url: 'http://agent.test/',
    fetch: async () => new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream' } }),
  });
  const seen = { outcome: null, runError: null };
  try {
    await agent.runAgent(
      {},
      {
        onRunFinishedEvent: ({ event }) => {
          seen.outcome = event.outcome ?? null;
        },
        onRunErrorEvent: ({ event }) => {
          seen.runError = event.message;
        },
      },
    );
  } catch (error) {
    seen.error = errorMessage(error);
  }
  return {
    messages: agent.messages,
    state: agent.state,
    pendingInterrupts: agent.pendingInterrupts,
    outcome: seen.outcome,
    runError: seen.runError,
    error: seen.error ?? null,
  };
}

// The client logs warnings and failures with console; keep stdout for the one JSON answer.
console.log = console.warn = console.error = (...args) => process.stderr.write(`${args.join(' ')}\n`);

const body = await readStdin();
const { events, error } = await verify(body);
const agent = await runAgent(body);
process.stdout.write(`${JSON.stringify({ events, error, agent })}\n`);
