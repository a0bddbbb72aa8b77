import { useChat } from '@ai-sdk/react';
import {
  DefaultChatTransport,
  type UIMessage,
  isToolOrDynamicToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
} from 'ai';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Message } from './Message';
import { Unauthorized, authHeaders, getJson, post } from './api';
import { type ConversationDecisions, decisionLines } from './decisions';
import { retryingFetch } from './reconnect';

function hasToolCalls(messages: UIMessage[]): boolean {
  return messages.some((m) => m.parts.some(isToolOrDynamicToolUIPart));
}

// The server's errors are `{"detail": "..."}`: the detail is what to show.
function errorText(message: string): string {
  try {
    const body: unknown = JSON.parse(message);
    if (typeof body === 'object' && body !== null && 'detail' in body && typeof body.detail === 'string') {
      return body.detail;
    }
  } catch {
    // not JSON: shown as it came
  }
  return message;
}

interface ChatProps {
  id: string;
  agent: string;
  initialMessages: UIMessage[];
  resume: boolean;
  onUnauthorized: () => void;
}

export function Chat({ id, agent, initialMessages, resume, onUnauthorized }: ChatProps) {
  const [input, setInput] = useState('');
  const [stopping, setStopping] = useState(false);
  // Streams that ended so far, to tell whether a resume found a turn to follow.
  const ended = useRef(0);
  // The request in flight carries the answers to approvals.
  const answering = useRef(false);
  const [decided, setDecided] = useState<ConversationDecisions | null>(null);
  // Following the turn again (the history, then the stream) waits while the server cannot serve it, e.g. until a
  // new worker takes over, and says so quietly; what then still fails is shown once.
  const [reconnecting, setReconnecting] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const reads = useMemo(() => retryingFetch(setReconnecting), []);
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: '/api/chat',
        headers: () => authHeaders(),
        fetch: reads,
        // The server keeps the history and takes only the newest message, so only that one is sent. The agent is
        // named when the conversation starts; afterwards the server knows it.
        prepareSendMessagesRequest: ({ id: chatId, messages, trigger, messageId }) => ({
          body: {
            id: chatId,
            trigger,
            messageId,
            messages: messages.slice(-1),
            ...(messages.length === 1 && agent ? { agent } : {}),
          },
        }),
      }),
    [agent, reads],
  );
  const { messages, setMessages, sendMessage, resumeStream, status, stop, error, addToolApprovalResponse } = useChat({
    id,
    messages: initialMessages,
    transport,
    resume,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: (e) => {
      if (/\b401\b|Unauthorized/.test(e.message)) onUnauthorized();
      // The answers were refused (e.g. the approval rules do not allow this user): the approvals are still open,
      // so show them as the server has them, to be answered again or by someone else.
      else if (answering.current) void restore();
    },
    onFinish: ({ messages: shown, isAbort, isError, finishReason }) => {
      ended.current += 1;
      answering.current = false;
      if (!isError && hasToolCalls(shown)) void readDecisions();
      // A stream that ends without its finish was interrupted by the server while the turn goes on (a retried
      // model request replaced the text shown): show the conversation as the server has it and follow the turn
      // again, which replays it from its start, as a reload would.
      if (!isAbort && !isError && finishReason === undefined) void recover();
    },
  });

  const readDecisions = async () => {
    try {
      const answer = await getJson<ConversationDecisions>(`/api/chat/${id}/decisions`);
      if (answer) setDecided(answer);
    } catch (e) {
      // Best effort: the calls are shown without who decided them until the next read.
      if (e instanceof Unauthorized) onUnauthorized();
    }
  };

  // A restored conversation: who decided its calls so far (once, for the messages the chat opened with).
  useEffect(() => {
    if (hasToolCalls(initialMessages)) void readDecisions();
  }, []);

  const decisions = useMemo(() => decisionLines(decided, messages), [decided, messages]);

  const restore = async () => {
    const restored = await getJson<UIMessage[]>(`/api/chat/${id}/messages`, { fetcher: reads });
    if (restored) setMessages(restored);
  };

  const recover = async () => {
    setFailure(null);
    try {
      await restore();
      const before = ended.current;
      await resumeStream();
      // Nothing to follow: the turn ended after the history was read, so the history now has its answer.
      if (ended.current === before) await restore();
    } catch (e) {
      if (e instanceof Unauthorized) onUnauthorized();
      else setFailure(e instanceof Error ? e.message : String(e));
    }
  };

  // While the page reconnects to a running turn, a new message would only be refused: the turn can be stopped.
  const busy = status === 'submitted' || status === 'streaming' || stopping || reconnecting;
  const waitingForApproval = messages.some((m) =>
    m.parts.some((p) => 'state' in p && p.state === 'approval-requested'),
  );

  const send = (e: React.FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy || waitingForApproval) return;
    setInput('');
    setFailure(null);
    void sendMessage({ text });
  };

  const stopTurn = () => {
    void stop();
    // Closing the stream only detaches this page: the turn runs on until the server is told to stop it, and
    // the conversation takes no new message until it has.
    setStopping(true);
    post(`/api/chat/${id}/stop`).then(
      () => setStopping(false),
      (e) => (e instanceof Unauthorized ? onUnauthorized() : setStopping(false)),
    );
  };

  return (
    <section className="chat" aria-label="Conversation">
      <ol className="messages" aria-live="polite">
        {messages
          .filter((m) => m.role !== 'system')
          .map((m) => (
            <Message
              key={m.id}
              message={m}
              decisions={decisions}
              onApproval={(answer) => {
                answering.current = true;
                return addToolApprovalResponse(answer);
              }}
              busy={busy}
            />
          ))}
      </ol>
      {reconnecting ? (
        <p role="status" className="muted status">
          Reconnecting…
        </p>
      ) : (
        status === 'submitted' && <p className="muted status">Thinking…</p>
      )}
      {(error || failure) && (
        <p role="alert" className="error">
          Something went wrong: {errorText(error?.message ?? failure ?? '')}
        </p>
      )}
      <form className="composer" onSubmit={send}>
        <label htmlFor="message" className="visually-hidden">
          Message
        </label>
        <textarea
          id="message"
          rows={2}
          value={input}
          placeholder={waitingForApproval ? 'Answer the approval above first' : 'Message'}
          onChange={(e) => setInput(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) send(e);
          }}
        />
        {busy ? (
          <button type="button" onClick={stopTurn} disabled={stopping}>
            Stop
          </button>
        ) : (
          <button type="submit" disabled={!input.trim() || waitingForApproval}>
            Send
          </button>
        )}
      </form>
    </section>
  );
}
