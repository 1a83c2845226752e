// A server-sent events client over fetch (POST with a JSON body, as subscription streams take; GET
// without one):
// events in arrival order, consumed one by one with next().

export interface SseEvent {
  event: string;
  id: string | undefined;
  data: any;
}

export interface SseStream {
  status: number;
  /** The JSON answer of a refused request. */
  body: any;
  /** The next event not yet consumed (waits for it); rejects when the stream ends first. */
  next(): Promise<SseEvent>;
  /** The id of the last event read, id-only events included (what Last-Event-ID would send). */
  lastId(): string | undefined;
  /** Resolves when the server ends the stream. */
  ended: Promise<void>;
  close(): void;
}

export async function openSse(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SseStream> {
  const abort = new AbortController();
  const res = await fetch(url, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), accept: 'text/event-stream', ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: abort.signal,
  });
  const queue: SseEvent[] = [];
  const waiters: { resolve: (e: SseEvent) => void; reject: (err: Error) => void }[] = [];
  let lastId: string | undefined;
  let done = false;
  const finish = () => {
    done = true;
    for (const w of waiters.splice(0)) w.reject(new Error('the stream ended'));
  };
  if (res.status !== 200 || !res.body) {
    const text = await res.text();
    return {
      status: res.status,
      body: text ? JSON.parse(text) : null,
      next: () => Promise.reject(new Error(`no stream: ${res.status}`)),
      lastId: () => undefined,
      ended: Promise.resolve(),
      close: () => undefined,
    };
  }
  const push = (block: string) => {
    let event = 'message';
    let id: string | undefined;
    const data: string[] = [];
    for (const line of block.split('\n')) {
      const colon = line.indexOf(':');
      if (colon === 0) continue;
      const name = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (name === 'event') event = value;
      else if (name === 'id') id = value;
      else if (name === 'data') data.push(value);
    }
    if (id !== undefined) lastId = id;
    if (data.length === 0) return;
    const e = { event, id, data: JSON.parse(data.join('\n')) };
    const w = waiters.shift();
    if (w) w.resolve(e);
    else queue.push(e);
  };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  const ended = (async () => {
    let buffer = '';
    try {
      for (;;) {
        const { value, done: over } = await reader.read();
        if (over) break;
        buffer += decoder.decode(value, { stream: true });
        for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
          push(buffer.slice(0, cut));
          buffer = buffer.slice(cut + 2);
        }
      }
    } catch {
      // aborted by close()
    }
    finish();
  })();
  return {
    status: res.status,
    body: null,
    next() {
      const e = queue.shift();
      if (e) return Promise.resolve(e);
      if (done) return Promise.reject(new Error('the stream ended'));
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }));
    },
    lastId: () => lastId,
    ended,
    close: () => abort.abort(),
  };
}
