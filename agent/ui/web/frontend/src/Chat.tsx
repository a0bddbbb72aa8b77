import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type UIMessage, lastAssistantMessageIsCompleteWithApprovalResponses } from 'ai';
import { useMemo, useState } from 'react';
import { Message } from './Message';
import { Unauthorized, authHeaders, post } from './api';

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
  const transport = useMemo(
    () =>
      new DefaultChatTransport({
        api: '/api/chat',
        headers: () => authHeaders(),
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
    [agent],
  );
  const { messages, sendMessage, status, stop, error, addToolApprovalResponse } = useChat({
    id,
    messages: initialMessages,
    transport,
    resume,
    sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    onError: (e) => {
      if (/\b401\b|Unauthorized/.test(e.message)) onUnauthorized();
    },
  });

  const busy = status === 'submitted' || status === 'streaming' || stopping;
  const waitingForApproval = messages.some((m) =>
    m.parts.some((p) => 'state' in p && p.state === 'approval-requested'),
  );

  const send = (e: React.FormEvent) => {
    e.preventDefault();
    const text = input.trim();
    if (!text || busy || waitingForApproval) return;
    setInput('');
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
            <Message key={m.id} message={m} onApproval={addToolApprovalResponse} busy={busy} />
          ))}
      </ol>
      {status === 'submitted' && <p className="muted status">Thinking…</p>}
      {error && (
        <p role="alert" className="error">
          Something went wrong: {error.message}
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
