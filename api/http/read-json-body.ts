import type { Context } from 'koa';
import { DomainError } from '../../domain/errors.ts';
import type { BodyBuffer } from './body-buffer.ts';

/**
 * Reads the whole body up to `limit` bytes and parses it as JSON (or, when the route takes a text
 * type and the request has it, returns the text, or a form's fields). An empty body reads as `undefined`, so the
 * schema decides whether one is required.
 */
export async function readJsonBody(ctx: Context, limit: number, textType?: string): Promise<unknown> {
  const body = await readBodyBytes(ctx, limit);
  const size = body.length;
  if (size === 0) return undefined;

  // A missing type is refused too: a cross-site form can send text/plain or no type
  // without a CORS preflight, but never application/json.
  const type = ctx.request.type;
  const text = textType !== undefined && type === textType;
  if (!text && type !== 'application/json' && !type.endsWith('+json')) {
    throw new DomainError('malformed_json', 'The request body must be JSON (Content-Type: application/json).', {
      details: { contentType: type || null },
    });
  }
  let decoded: string;
  try {
    decoded = new TextDecoder('utf-8', { fatal: true, ignoreBOM: text }).decode(body);
  } catch {
    throw new DomainError('malformed_json', 'The request body is not valid UTF-8.');
  }
  // A form is given to the schema as its fields (each name once, a repeated name keeps the
  // last), so the string rule sees the decoded values and not their percent-encoding.
  if (text) return type === 'application/x-www-form-urlencoded' ? Object.fromEntries(new URLSearchParams(decoded)) : decoded;
  try {
    return JSON.parse(decoded);
  } catch (err) {
    throw new DomainError('malformed_json', undefined, { details: { reason: (err as Error).message } });
  }
}

/**
 * Reads the whole body, up to `limit` bytes (payload_too_large beyond, without reading on when the
 * declared length says so), within the process's body buffer (`ctx.state.bodyBuffer`, per
 * `ctx.state.tenant`): past it, 429 rate_limited before anything more is read. `each` is given
 * every chunk as it arrives, in order (a route hashing the body does it while it arrives).
 */
export async function readBodyBytes(ctx: Context, limit: number, each?: (chunk: Buffer) => void): Promise<Buffer> {
  const tooLarge = () =>
    new DomainError('payload_too_large', `The request body is larger than ${limit} bytes.`, { details: { limitBytes: limit } });
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    // Answer without reading; the connection closes so the client stops sending.
    ctx.set('Connection', 'close');
    throw tooLarge();
  }
  const take = holdWithin(ctx);
  if (declared > 0) take(declared);
  // Of a declared length, each chunk is copied into place as it arrives: no copy of the whole body waits after its last byte.
  const whole = declared > 0 ? Buffer.allocUnsafe(declared) : undefined;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    // Node's parser ends a body at its declared length; more would not fit `whole`.
    if (size + chunk.length > (whole ? declared : limit)) {
      ctx.set('Connection', 'close');
      throw tooLarge();
    }
    if (!whole) take(chunk.length);
    each?.(chunk);
    if (whole) chunk.copy(whole, size);
    else chunks.push(chunk);
    size += chunk.length;
  }
  return whole ? whole.subarray(0, size) : Buffer.concat(chunks, size);
}

/** Takes bytes from the process's body buffer for this request, given back once when its response closes. */
function holdWithin(ctx: Context): (bytes: number) => void {
  const buffer = ctx.state.bodyBuffer as BodyBuffer | undefined;
  const tenant = String(ctx.state.tenant ?? ctx.ip);
  let held = 0;
  return (bytes) => {
    if (!buffer) return;
    // Never fits, however long one waits: said as the size it is.
    if (held + bytes > buffer.totalBytes / 2) {
      ctx.set('Connection', 'close');
      throw new DomainError(
        'payload_too_large',
        `This service holds at most ${buffer.totalBytes / 2} bytes of one company's request bodies at once (SVC_BODY_BUFFER_BYTES).`,
        {
          details: { limitBytes: buffer.totalBytes / 2 },
        },
      );
    }
    if (!buffer.reserve(tenant, bytes)) {
      ctx.set('Connection', 'close');
      throw new DomainError(
        'rate_limited',
        `This service holds as many uploaded bytes as it may at once (${buffer.totalBytes} in all, half of it for one company); retry shortly.`,
        { details: { retryAfterSeconds: 1 }, retryAfterSeconds: 1 },
      );
    }
    if (held === 0) ctx.res.once('close', () => buffer.release(tenant, held));
    held += bytes;
  };
}
