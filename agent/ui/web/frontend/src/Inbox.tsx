import { useEffect, useState } from 'react';
import { type WaitingConversation, getJson } from './api';

const POLL_MS = 1500;

export function Inbox({ currentId, onError }: { currentId: string | null; onError: (e: unknown) => void }) {
  const [waiting, setWaiting] = useState<WaitingConversation[]>([]);

  useEffect(() => {
    let stopped = false;
    let timer: number | undefined;
    const poll = async () => {
      try {
        const items = await getJson<WaitingConversation[]>('/api/inbox');
        if (!stopped) setWaiting(items ?? []);
      } catch (e) {
        if (!stopped) onError(e);
        return;
      }
      if (!stopped) timer = window.setTimeout(poll, POLL_MS);
    };
    void poll();
    return () => {
      stopped = true;
      window.clearTimeout(timer);
    };
  }, [onError]);

  return (
    <aside className="inbox" aria-labelledby="inbox-heading">
      <h2 id="inbox-heading">Waiting for you</h2>
      {waiting.length === 0 ? (
        <p className="muted">Nothing is waiting for approval.</p>
      ) : (
        <ul>
          {waiting.map((w) => (
            <li key={w.conversation_id} className={w.conversation_id === currentId ? 'current' : undefined}>
              <a href={`#/chat/${w.conversation_id}`}>
                <span className="title">{w.title || 'Untitled conversation'}</span>
                <span className="muted">
                  {w.agent} · approve {w.approvals.map((a) => a.tool_name).join(', ')}
                </span>
              </a>
            </li>
          ))}
        </ul>
      )}
    </aside>
  );
}
