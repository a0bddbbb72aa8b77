// Checks a Vercel AI UI message stream (or a list of UI messages) with the AI SDK's own code.
//
//   node tests/ui/js/vercel_ai_check.mjs < body.sse       -> {done, chunks, invalid, errors, message}
//   node tests/ui/js/vercel_ai_check.mjs continue < x.json -> the same, for {"message": ..., "body": "..."}:
//                                                            a stream that continues `message` (as `useChat`
//                                                            does after an approval)
//   node tests/ui/js/vercel_ai_check.mjs messages < x.json -> {valid, error, messages}
//
// Stream mode parses the SSE body with `parseJsonEventStream` and `uiMessageChunkSchema` (every chunk
// must match the schema), then feeds the chunks to `readUIMessageStream`, which rebuilds the assistant
// message exactly as `useChat` would. `errors` holds everything the SDK reported: the text of our `error`
// chunks and any protocol violation (a delta for an unknown part, an output for an unknown tool call, ...).
// Messages mode runs `safeValidateUIMessages` on a JSON array of UI messages (what a client would persist).
import { parseJsonEventStream, readUIMessageStream, safeValidateUIMessages, uiMessageChunkSchema } from 'ai';

async function readStdin() {
  const pieces = [];
  for await (const piece of process.stdin) pieces.push(piece);
  return Buffer.concat(pieces).toString('utf8');
}

async function checkStream(body, message = undefined) {
  const events = body.split('\n\n').filter((event) => event.trim() !== '');
  const done = events.length > 0 && events[events.length - 1] === 'data: [DONE]';
  const bytes = new ReadableStream({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(body));
      controller.close();
    },
  });
  // Parse every chunk first, so a chunk that breaks the schema is reported even after a protocol error.
  const chunks = [];
  const invalid = [];
  for await (const result of parseJsonEventStream({ stream: bytes, schema: uiMessageChunkSchema })) {
    if (result.success) chunks.push(result.value);
    else invalid.push({ chunk: result.rawValue, error: String(result.error?.message ?? result.error).slice(0, 200) });
  }
  const validChunks = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  const errors = [];
  let message_ = message ?? null;
  for await (const snapshot of readUIMessageStream({
    message,
    stream: validChunks,
    onError: (error) => errors.push(String(error?.message ?? error)),
  })) {
    message_ = snapshot;
  }
  return { done, chunks, invalid, errors, message: message_ };
}

async function checkMessages(body) {
  const result = await safeValidateUIMessages({ messages: JSON.parse(body) });
  return result.success
    ? { valid: true, error: null, messages: result.data }
    : { valid: false, error: String(result.error?.message ?? result.error), messages: null };
}

const body = await readStdin();
const mode = process.argv[2] ?? 'stream';
let output;
if (mode === 'messages') output = await checkMessages(body);
else if (mode === 'continue') {
  const { message, body: stream } = JSON.parse(body);
  output = await checkStream(stream, message);
} else output = await checkStream(body);
process.stdout.write(JSON.stringify(output));
