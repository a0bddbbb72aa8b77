// Reads the page repeats while the server cannot serve them for now, so that following a conversation survives a
// worker restart (the chat server answers 503 while no worker serves the conversations) or a dropped connection.
//
// Only reads (GET) are repeated: repeating one changes nothing, whereas a message or an answer sent twice could be
// taken twice. The answers worth waiting for are the ones that say "not now": 503 (no worker yet), 502 and 504 (a
// proxy in front of a restarting server), 408 and 429, and a request that got no answer at all. Any other status,
// a 4xx or a 500, is the answer and is returned at once.

const FIRST_PAUSE_MS = 500;
const LAST_PAUSE_MS = 5_000;
// Long enough for a worker to start on a busy machine; after that the person is told what the server says.
const GIVE_UP_MS = 180_000;
const NOT_NOW = new Set([408, 429, 502, 503, 504]);

function pause(ms: number, signal: AbortSignal | null | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      window.clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = window.setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

// A `fetch` that repeats a read the server cannot serve now, pausing 0.5 s and doubling up to 5 s between tries, for
// up to 3 minutes; `onWaiting(true)` once it waits, `onWaiting(false)` when it is done either way. The last answer
// (or network error) is what the caller gets when it gives up, and an abort ends the wait at once.
export function retryingFetch(onWaiting: (waiting: boolean) => void): typeof fetch {
  return async (input, init) => {
    if ((init?.method ?? 'GET').toUpperCase() !== 'GET') return fetch(input, init);
    const giveUpAt = Date.now() + GIVE_UP_MS;
    let wait = FIRST_PAUSE_MS;
    try {
      for (;;) {
        try {
          const response = await fetch(input, init);
          if (!NOT_NOW.has(response.status) || Date.now() + wait > giveUpAt) return response;
          await response.body?.cancel();
        } catch (e) {
          // A fetch that got no answer rejects with a TypeError; an abort, or anything else, is not retried.
          if (!(e instanceof TypeError) || init?.signal?.aborted || Date.now() + wait > giveUpAt) throw e;
        }
        onWaiting(true);
        await pause(wait, init?.signal);
        wait = Math.min(wait * 2, LAST_PAUSE_MS);
      }
    } finally {
      onWaiting(false);
    }
  };
}
