import { CliError, EXIT, exitCodeOf } from './errors.ts';

export type RequestOptions = {
  body?: unknown;
  query?: Record<string, string>;
  dryRun?: boolean;
  /** Raw request body (already JSON), e.g. a stream that reports upload progress. */
  stream?: { body: ReadableStream<Uint8Array>; length: number };
};

/** The service's JSON API: unwraps the success envelope, turns the failure envelope into a CliError. */
export class ApiClient {
  readonly baseUrl: string;
  readonly apiKey: string | undefined;

  constructor(baseUrl: string, apiKey: string | undefined) {
    this.baseUrl = baseUrl;
    this.apiKey = apiKey;
  }

  /** Why the service cannot be reached, or nothing when it answers at all (whatever the status). */
  async unreachable(): Promise<CliError | undefined> {
    try {
      await (await this.send(new URL(`${this.baseUrl}/`), { method: 'HEAD' })).body?.cancel();
      return undefined;
    } catch (error) {
      if (error instanceof CliError && error.extra.code === 'unreachable') return error;
      throw error;
    }
  }

  /** fetch, with a connection that fails (refused, unknown host, timeout) said as "cannot reach" (exit 1). */
  private async send(url: URL, init: RequestInit): Promise<Response> {
    try {
      return await fetch(url, init);
    } catch (error) {
      throw new CliError(`cannot reach ${this.baseUrl}: ${reasonOf(error)}`, EXIT.failure, { code: 'unreachable' });
    }
  }

  private urlOf(path: string, query: Record<string, string> = {}): URL {
    const url = new URL(`${this.baseUrl}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
    return url;
  }

  private headersFor(accept: string): Record<string, string> {
    return { accept, ...(this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {}) };
  }

  async request<T>(method: string, path: string, opts: RequestOptions = {}): Promise<T> {
    const url = this.urlOf(path, opts.query);
    const headers = this.headersFor('application/json');
    if (opts.dryRun) headers['x-svc-dry-run'] = 'true';
    let body: string | ReadableStream<Uint8Array> | undefined;
    if (opts.stream) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(opts.stream.length);
      body = opts.stream.body;
    } else if (opts.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(opts.body);
    }
    const res = await this.send(url, { method, headers, body, ...(opts.stream ? { duplex: 'half' } : {}) } as RequestInit);
    return this.answerOf<T>(method, url, res);
  }

  /**
   * A server-sent event stream (GET), each event as it arrives, until the service ends it. A
   * refusal before the stream starts is the failure envelope, thrown as `request` throws it.
   */
  async *events(path: string, query: Record<string, string> = {}): AsyncGenerator<ServerEvent> {
    const url = this.urlOf(path, query);
    const res = await this.send(url, { method: 'GET', headers: this.headersFor('text/event-stream') });
    if (!res.ok || !res.headers.get('content-type')?.startsWith('text/event-stream') || !res.body) {
      await this.answerOf('GET', url, res);
      throw new CliError(`GET ${url.pathname}: HTTP ${res.status}, not an event stream`, EXIT.failure, { status: res.status });
    }
    let buffer = '';
    for await (const chunk of res.body.pipeThrough(new TextDecoderStream())) {
      buffer += chunk.replaceAll('\r\n', '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const event = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
      }
    }
  }

  /** The success envelope's data, or its failure envelope as a CliError. */
  private async answerOf<T>(method: string, url: URL, res: Response): Promise<T> {
    const text = await res.text();
    let envelope: any;
    try {
      envelope = JSON.parse(text);
    } catch {
      throw new CliError(`${method} ${url.pathname}: HTTP ${res.status}, not a JSON answer`, EXIT.failure, { status: res.status });
    }
    const requestId = envelope?.requestId ?? res.headers.get('x-request-id') ?? undefined;
    // A dry run's data is `{dryRun: true, plan}`.
    if (envelope?.ok === true) return envelope.data as T;
    const error = envelope?.error ?? {};
    const code = String(error.code ?? `http_${res.status}`);
    throw new CliError(String(error.message ?? `HTTP ${res.status}`), exitCodeOf(code), {
      code,
      requestId,
      status: res.status,
      details: error.details,
    });
  }
}

/** One server-sent event; `data` parsed as JSON. */
export type ServerEvent = { id: string | undefined; event: string; data: unknown };

/** An event block's fields (comments and `retry` ignored); nothing for a block without data. */
function parseEvent(block: string): ServerEvent | undefined {
  let id: string | undefined;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    const colon = line.indexOf(':');
    if (colon === 0) continue;
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { id, event, data: JSON.parse(data.join('\n')) };
}

const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  ETIMEDOUT: 'timed out',
  UND_ERR_CONNECT_TIMEOUT: 'timed out connecting',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
};

/** fetch's TypeError says only "fetch failed"; the system's reason is in its cause. */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const code = cause?.code;
  if (code && REASONS[code]) return `${REASONS[code]} (${code})`;
  return cause?.message ?? (error as Error).message;
}
