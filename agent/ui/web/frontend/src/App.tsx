import type { UIMessage } from 'ai';
import { useCallback, useEffect, useMemo, useState } from 'react';
import { Chat } from './Chat';
import { Inbox } from './Inbox';
import { TokenForm } from './TokenForm';
import { Unauthorized, chatIdFromHash, getJson, newChatId } from './api';
import { retryingFetch } from './reconnect';

// What the chat panel shows: a conversation id and, for one restored from the server, its messages.
interface Opened {
  id: string;
  messages: UIMessage[];
  restored: boolean;
}

function useHash(): string {
  const [hash, setHash] = useState(window.location.hash);
  useEffect(() => {
    const onChange = () => setHash(window.location.hash);
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return hash;
}

export function App() {
  const hash = useHash();
  // `null` until the server said whether the saved token (if any) is good.
  const [needsToken, setNeedsToken] = useState<boolean | null>(null);
  const [agents, setAgents] = useState<string[]>([]);
  const [agent, setAgent] = useState('');
  const [opened, setOpened] = useState<Opened | null>(null);
  const [error, setError] = useState<string | null>(null);
  // Opening a conversation waits while the server cannot read it yet (e.g. until a worker serves it).
  const [reconnecting, setReconnecting] = useState(false);
  const reads = useMemo(() => retryingFetch(setReconnecting), []);

  const onError = useCallback((e: unknown) => {
    if (e instanceof Unauthorized) setNeedsToken(true);
    else setError(e instanceof Error ? e.message : String(e));
  }, []);

  useEffect(() => {
    if (needsToken !== null) return;
    getJson<{ owner: string | null }>('/api/whoami').then((me) => setNeedsToken(me?.owner == null), onError);
  }, [needsToken, onError]);

  useEffect(() => {
    if (needsToken !== false) return;
    getJson<string[]>('/api/agents').then((names) => {
      setAgents(names ?? []);
      setAgent((current) => current || (names ?? [])[0] || '');
    }, onError);
  }, [needsToken, onError]);

  // The address bar names the conversation (`#/chat/<id>`): open it, restoring its messages from the server.
  useEffect(() => {
    if (needsToken !== false) return;
    const id = chatIdFromHash(hash);
    if (id === null) {
      // A new id has no history to fetch: open it directly.
      const fresh = newChatId();
      setOpened({ id: fresh, messages: [], restored: false });
      window.location.replace(`#/chat/${fresh}`);
      return;
    }
    if (opened?.id === id) return;
    const opening = new AbortController();
    getJson<UIMessage[]>(`/api/chat/${id}/messages`, { fetcher: reads, signal: opening.signal }).then(
      (messages) => {
        if (!opening.signal.aborted) setOpened({ id, messages: messages ?? [], restored: messages !== null });
      },
      (e) => {
        if (!opening.signal.aborted) onError(e);
      },
    );
    return () => opening.abort();
  }, [hash, needsToken, opened?.id, onError, reads]);

  const newChat = () => {
    const id = newChatId();
    // A new id has no history to fetch: open it directly.
    setOpened({ id, messages: [], restored: false });
    window.location.hash = `#/chat/${id}`;
  };

  if (needsToken === null) return null;
  if (needsToken) {
    return (
      <main className="app">
        <TokenForm onSaved={() => setNeedsToken(null)} />
      </main>
    );
  }

  return (
    <div className="app">
      <header className="top">
        <h1>Agent chat</h1>
        <label className="agent-picker">
          Agent
          <select value={agent} onChange={(e) => setAgent(e.target.value)}>
            {agents.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={newChat}>
          New chat
        </button>
      </header>
      {error && (
        <p role="alert" className="error">
          {error}
        </p>
      )}
      {reconnecting && (
        <p role="status" className="muted status">
          Reconnecting…
        </p>
      )}
      <div className="layout">
        <main className="chat-panel">
          {opened && (
            <Chat
              key={opened.id}
              id={opened.id}
              agent={agent}
              initialMessages={opened.messages}
              resume={opened.restored}
              onUnauthorized={() => setNeedsToken(true)}
            />
          )}
        </main>
        <Inbox currentId={opened?.id ?? null} onError={onError} />
      </div>
    </div>
  );
}
