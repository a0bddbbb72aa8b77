// The page's side of the chat app's API: the bearer token, routes, and JSON requests.

const TOKEN_KEY = 'chat-token';

export class Unauthorized extends Error {}

export function takeTokenFromUrl(): void {
  // `#token=...` (a link the server printed) is kept for the tab's session and removed from the address bar,
  // so it is neither bookmarked nor sent to another page in a `Referer`.
  const match = /^#token=([^&]+)/.exec(window.location.hash);
  if (match) {
    sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', window.location.pathname + window.location.search + '#/');
  }
}

export function getToken(): string | null {
  return sessionStorage.getItem(TOKEN_KEY);
}

export function setToken(token: string): void {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function authHeaders(): Record<string, string> {
  const token = getToken();
  return token ? { Authorization: `Bearer ${token}` } : {};
}

// `fetcher` is how to fetch (`retryingFetch` for reads worth waiting for); `signal` gives the read up.
export async function getJson<T>(
  path: string,
  { fetcher = fetch, signal }: { fetcher?: typeof fetch; signal?: AbortSignal } = {},
): Promise<T | null> {
  const response = await fetcher(path, { headers: authHeaders(), signal });
  if (response.status === 401) throw new Unauthorized();
  if (response.status === 404) return null;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${response.statusText}`);
  return (await response.json()) as T;
}

export async function post(path: string): Promise<void> {
  const response = await fetch(path, { method: 'POST', headers: authHeaders() });
  if (response.status === 401) throw new Unauthorized();
}

export function chatIdFromHash(hash: string): string | null {
  const match = /^#\/chat\/([A-Za-z0-9_-]+)$/.exec(hash);
  return match ? match[1] : null;
}

export function newChatId(): string {
  // `crypto.randomUUID` needs a secure context; `getRandomValues` works on plain http on a LAN too.
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

export interface PendingApproval {
  tool_call_id: string;
  tool_name: string;
  args: Record<string, unknown>;
}

export interface WaitingConversation {
  conversation_id: string;
  agent: string;
  title: string;
  approvals: PendingApproval[];
  updated_at: string;
}
