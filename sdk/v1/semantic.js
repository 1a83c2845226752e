// The svc SDK v1: one ES module for Node (scripts, tests) and for an app's sandboxed page. Served
// at {base_url}/developer/sdk/v1/semantic.js; the legacy names (auth.js, log.js, data.js, …)
// re-export it. It imports nothing, so the same file runs anywhere fetch does. Types:
// semantic.d.ts beside it, generated from the service's zod schemas.

/** The stable marker of every error this SDK throws (`error.marker === SVC_ERROR_MARKER`). */
export const SVC_ERROR_MARKER = 'svc-sdk-error';
/** Captured errors sent per error class and page (the service stores 10 per class, visitor and day). */
export const ERRORS_PER_CLASS = 10;
/** A ticket is renewed this long before it expires. */
const RENEW_BEFORE_MS = 5 * 60_000;
const SDK_PATH = '/developer/sdk/v1/';

/** A failed call: `code` is the service's error code (or `not_logged_in`, `network_error`). */
export class SvcError extends Error {
  constructor(code, message, init = {}) {
    super(message);
    this.name = 'SvcError';
    this.marker = SVC_ERROR_MARKER;
    this.code = code;
    this.status = init.status ?? 0;
    this.details = init.details;
    this.requestId = init.requestId;
  }
}

export const isSvcError = (value) => typeof value === 'object' && value !== null && value.marker === SVC_ERROR_MARKER;

const UPLOAD_CHUNK = 64 * 1024;

/** Bytes to send as they are (a media item), with progress: a request body that can be opened again for a retry. */
class Bytes {
  constructor(data, type, onProgress) {
    this.data = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
    this.type = type;
    this.total = this.data.byteLength ?? this.data.size;
    this.onProgress = onProgress;
    this.streamed = inNode() && onProgress !== undefined;
  }

  open() {
    this.onProgress?.({ loaded: 0, total: this.total });
    if (!this.streamed) return this.data;
    let loaded = 0;
    // Chunks of UPLOAD_CHUNK bytes, each reported as the request takes it.
    return new ReadableStream({
      pull: async (controller) => {
        if (loaded >= this.total) return controller.close();
        const end = Math.min(this.total, loaded + UPLOAD_CHUNK);
        const chunk =
          this.data instanceof Uint8Array
            ? this.data.subarray(loaded, end)
            : new Uint8Array(await this.data.slice(loaded, end).arrayBuffer());
        controller.enqueue(chunk);
        loaded = end;
        this.onProgress({ loaded, total: this.total });
      },
    });
  }

  /** The end, where the body was not streamed. */
  done() {
    if (!this.streamed) this.onProgress?.({ loaded: this.total, total: this.total });
  }
}

/** The largest part of an upload session (spec Limits: media). */
const MAX_PART_BYTES = 16 * 1024 * 1024;
/** A completing session is asked again after this long, doubling up to POLL_MAX_MS. */
const POLL_FIRST_MS = 250;
const POLL_MAX_MS = 4000;

/** Failures worth one more try: the network, the service's own, too many requests. */
const retryable = (error) => error?.code === 'network_error' || error?.status >= 500 || error?.status === 429;

/** Waits `ms`, or rejects with the signal's reason as soon as it aborts. */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** The SvcError of a failed answer (its envelope's error, or the HTTP status alone). */
function failure(res, json) {
  const error = json?.error ?? { code: 'internal_error', message: `Unexpected answer (HTTP ${res.status}).` };
  return new SvcError(error.code, error.message, { status: res.status, details: error.details, requestId: json?.requestId });
}

const inNode = () => typeof process === 'object' && process !== null && typeof process.versions?.node === 'string';
const inPage = () => typeof document === 'object' && document !== null;

function meta(name) {
  return inPage() ? (document.querySelector(`meta[name="${name}"]`)?.getAttribute('content') ?? undefined) : undefined;
}

/** The login `svc login` stored (Node only): the file env-paths names for the CLI's config. */
async function storedLogin() {
  const [{ readFile }, { homedir }, { join }] = await Promise.all([import('node:fs/promises'), import('node:os'), import('node:path')]);
  const env = process.env;
  const dir =
    process.platform === 'darwin'
      ? join(homedir(), 'Library', 'Preferences', 'svc')
      : process.platform === 'win32'
        ? join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'svc', 'Config')
        : join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc');
  try {
    const login = JSON.parse(await readFile(join(dir, 'login.json'), 'utf8'));
    return typeof login?.key === 'string' ? { key: login.key, baseUrl: login.baseUrl } : undefined;
  } catch (error) {
    if (error?.code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Where the SDK itself was loaded from, when that was the service. */
function ownBase() {
  const at = import.meta.url.indexOf(SDK_PATH);
  return at > 0 && /^https?:/.test(import.meta.url) ? import.meta.url.slice(0, at) : undefined;
}

/**
 * The credential, in the spec's order: explicit apiKey, SVC_API_KEY (Node), the CLI's stored
 * login (Node), the app ticket the platform injected into the page. Undefined: no credential.
 */
async function discover(options) {
  const env = inNode() ? process.env : {};
  const base = options.baseUrl ?? env.SVC_BASE_URL;
  if (options.apiKey) return { kind: 'key', token: options.apiKey, baseUrl: base ?? ownBase() };
  if (env.SVC_API_KEY) return { kind: 'key', token: env.SVC_API_KEY, baseUrl: base ?? ownBase() };
  if (inNode() && options.storedLogin !== false) {
    const login = await storedLogin();
    if (login) return { kind: 'key', token: login.key, baseUrl: base ?? login.baseUrl ?? ownBase() };
  }
  const ticket = meta('svc-app-ticket');
  if (ticket) {
    const [namespace, slug] = (meta('svc-app') ?? '').split('/');
    const expires = Date.parse(meta('svc-app-ticket-expires') ?? '');
    return {
      kind: 'ticket',
      token: ticket,
      baseUrl: base ?? ownBase(),
      app: namespace && slug ? { namespace, slug } : undefined,
      expiresAt: Number.isNaN(expires) ? undefined : expires,
    };
  }
  return undefined;
}

const notLoggedIn = () =>
  new SvcError('not_logged_in', 'No svc credential: pass apiKey, set SVC_API_KEY, run `svc login`, or open the app on the platform.', {
    status: 401,
  });

/**
 * A client. Every request carries the discovered credential; without one, every call fails with
 * 401 not_logged_in before anything is sent (there are no anonymous requests).
 */
export function createClient(options = {}) {
  const fetchImpl = options.fetch ?? globalThis.fetch.bind(globalThis);
  let credential;
  let renewing;
  let renewTimer;
  const discovered = discover(options).then((found) => {
    credential = found;
    if (found?.kind === 'ticket') scheduleRenewal();
    return found;
  });

  async function current() {
    const found = credential ?? (await discovered);
    if (!found) throw notLoggedIn();
    if (!found.baseUrl) throw new SvcError('invalid_payload', 'The service address is unknown: pass baseUrl or set SVC_BASE_URL.');
    return found;
  }

  /**
   * Renews RENEW_BEFORE_MS before expiry by this device's clock. A ticket fresh from a renewal
   * that already looks due means the device's clock disagrees with the service's: no timer then
   * (it would renew in a loop); the one renewal on a 401 keeps calls working.
   */
  function scheduleRenewal(afterRenewal = false) {
    if (renewTimer) clearTimeout(renewTimer);
    if (!credential?.expiresAt) return;
    const delay = credential.expiresAt - Date.now() - RENEW_BEFORE_MS;
    if (delay <= 0 && afterRenewal) return;
    renewTimer = setTimeout(() => renew().catch(() => {}), Math.max(0, delay));
    // A pending renewal never keeps a Node process alive.
    renewTimer.unref?.();
  }

  /** A new ticket for the current one; concurrent callers share one renewal. */
  function renew() {
    renewing ??= (async () => {
      const cred = await current();
      const app = cred.app ?? (await me()).app;
      const res = await send(cred, 'POST', `/api/v1/developer/apps/${app.namespace}/${app.slug}/tickets`);
      credential = { ...cred, app, token: res.ticket, expiresAt: Date.parse(res.expiresAt) };
      scheduleRenewal(true);
      return res;
    })().finally(() => {
      renewing = undefined;
    });
    return renewing;
  }

  async function send(cred, method, path, body, headers = {}, signal = undefined) {
    let res;
    const raw = body instanceof Bytes;
    try {
      res = await fetchImpl(`${cred.baseUrl}${path}`, {
        method,
        signal,
        headers: {
          ...headers,
          authorization: `Bearer ${cred.token}`,
          ...(body === undefined ? {} : { 'content-type': raw ? body.type : 'application/json' }),
        },
        body: body === undefined ? undefined : raw ? body.open() : JSON.stringify(body),
        // A streamed request body (fetch's rule); Node's fetch sends it chunked.
        ...(raw && body.streamed ? { duplex: 'half' } : {}),
      });
    } catch (cause) {
      // An abort is the caller's own: its reason, not a network failure.
      if (signal?.aborted) throw signal.reason;
      throw new SvcError('network_error', `The service could not be reached: ${cause?.message ?? cause}`);
    }
    const json = await res.json().catch(() => undefined);
    if (res.ok && json?.ok) return json.data;
    throw failure(res, json);
  }

  /** One API call; with a ticket, an expired one is renewed once and the call repeated. */
  async function request(method, path, body, headers = {}, signal = undefined) {
    const cred = await current();
    try {
      return await send(cred, method, path, body, headers, signal);
    } catch (error) {
      if (cred.kind !== 'ticket' || error.status !== 401 || path.endsWith('/tickets')) throw error;
      await renew();
      return send(credential, method, path, body, headers, signal);
    }
  }

  async function me(app) {
    const query = app ? `?namespace=${encodeURIComponent(app.namespace)}&slug=${encodeURIComponent(app.slug)}` : '';
    return request('GET', `/api/v1/developer/auth/me${query}`);
  }

  /** The app calls are for: the ticket's, else `options.app` (a key may name any app of its company). */
  async function app() {
    const cred = await current();
    const found = options.app ?? cred.app;
    if (found) return found;
    const who = await me();
    if (who.app) return who.app;
    throw new SvcError('invalid_payload', 'Name the app: createClient({ app: { namespace, slug } }).');
  }

  const sentPerClass = new Map();
  async function sendEvents(events) {
    const { namespace, slug } = await app();
    const cred = await current();
    return request('POST', `/api/v1/developer/log/${namespace}/events`, { ...(cred.kind === 'ticket' ? {} : { slug }), events });
  }

  const log = {
    /** A usage event: `track('export', { rows: 10 })`. */
    track: (name, data) => sendEvents([{ kind: 'usage', name, ...(data === undefined ? {} : { data }) }]),
    /** Feedback: `{ topic, rating?, message?, object? }`. */
    feedback: (feedback) => sendEvents([{ kind: 'feedback', ...feedback }]),
    /**
     * A captured error; at most ERRORS_PER_CLASS per error class from this client, the rest
     * dropped here (answers `{ stored: 0, counted: 0, dropped: true }`).
     */
    error(error, context) {
      const name = String(error?.name ?? 'Error').slice(0, 100) || 'Error';
      const sent = sentPerClass.get(name) ?? 0;
      if (sent >= ERRORS_PER_CLASS) return Promise.resolve({ stored: 0, counted: 0, ids: [], dropped: true });
      sentPerClass.set(name, sent + 1);
      const captured = {
        name,
        message: String(error?.message ?? error).slice(0, 1000),
        ...(typeof error?.stack === 'string' ? { stack: error.stack.slice(0, 4000) } : {}),
      };
      return sendEvents([{ kind: 'error', error: captured, ...(context === undefined ? {} : { context }) }]);
    },
    /** Reports the page's uncaught errors and unhandled rejections; returns a function that stops it. */
    captureErrors(target = globalThis) {
      const onError = (event) => log.error(event.error ?? { name: 'Error', message: event.message }).catch(() => {});
      const onRejection = (event) => log.error(event.reason ?? { name: 'Error', message: 'unhandled rejection' }).catch(() => {});
      target.addEventListener?.('error', onError);
      target.addEventListener?.('unhandledrejection', onRejection);
      return () => {
        target.removeEventListener?.('error', onError);
        target.removeEventListener?.('unhandledrejection', onRejection);
      };
    },
  };

  /** The company's ontology: the app's namespace. */
  const ontologyPath = async () => `/api/v1/ontologies/${encodeURIComponent((await app()).namespace)}`;
  const semantic = {
    /** Objects of one type (Foundry v2 search body: where, orderBy, pageSize, pageToken, select). */
    search: async (type, query = {}) => request('POST', `${await ontologyPath()}/objects/${encodeURIComponent(type)}/search`, query),
    /** Runs an action; `preview: true` validates and answers the edits without committing. */
    apply: async (action, parameters = {}, { preview = false } = {}) =>
      request('POST', `${await ontologyPath()}/actions/${encodeURIComponent(action)}/apply`, {
        parameters,
        ...(preview ? { options: { mode: 'VALIDATE_ONLY' } } : {}),
      }),
  };

  /** The app's own APIs path. */
  const appPath = async () => {
    const { namespace, slug } = await app();
    return `/api/v1/developer/apps/${encodeURIComponent(namespace)}/${encodeURIComponent(slug)}`;
  };
  const apis = {
    /** The app's APIs (its exports and its workflow `run`) with their input JSON Schemas. */
    list: async () => request('GET', `${await appPath()}/apis`),
    /**
     * Calls one API: an export answers `{ result: { data } }` at once; the workflow `run` answers
     * its run (`preview: true`: the steps it would take). The same `idempotencyKey` answers the
     * same run, never a second one.
     */
    execute: async (name, input = {}, { preview = false, idempotencyKey } = {}) =>
      request(
        'POST',
        `${await appPath()}/apis/${encodeURIComponent(name)}/execute`,
        { input, ...(preview ? { preview } : {}) },
        idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey },
      ),
  };

  /** Evolve's path of the app's namespace. */
  const evolvePath = async () => `/api/v1/developer/evolve/${encodeURIComponent((await app()).namespace)}`;
  const evolve = {
    /** The improvements that apply to this visitor (company-wide, then their own personal ones). */
    overlay: async () => request('GET', `${await evolvePath()}/apps/${encodeURIComponent((await app()).slug)}/overlay`),
    /**
     * Proposes changes of the app's declared tokens and slots (`{ title, changes, evidence? }`);
     * an app's page proposes for its own visitor only, so a ticket's proposals are personal.
     */
    propose: async (proposal) => {
      const cred = await current();
      const scope = cred.kind === 'ticket' ? { scope: 'personal' } : {};
      return request('POST', `${await evolvePath()}/proposals`, { slug: (await app()).slug, ...scope, ...proposal });
    },
  };

  /** Bytes answered as content (media items, attachments): `range: { start, end? }` asks for those bytes only. */
  const readContent = async (url, { range } = {}) => {
    const cred = await current();
    const headers = { authorization: `Bearer ${cred.token}` };
    if (range) headers.range = `bytes=${range.start}-${range.end ?? ''}`;
    let res;
    try {
      res = await fetchImpl(url, { headers });
    } catch (cause) {
      throw new SvcError('network_error', `The service could not be reached: ${cause?.message ?? cause}`);
    }
    if (!res.ok) throw failure(res, await res.json().catch(() => undefined));
    return {
      bytes: new Uint8Array(await res.arrayBuffer()),
      contentType: res.headers.get('content-type'),
      etag: res.headers.get('etag'),
    };
  };

  /** Where an object's media property is read (`content`, `thumbnail`). */
  const objectMediaUrl = async (objectType, primaryKey, property, what) =>
    `${(await current()).baseUrl}${await ontologyPath()}/objects/${encodeURIComponent(objectType)}/${encodeURIComponent(primaryKey)}/media/${encodeURIComponent(property)}/${what}`;
  /** A media set's items path. */
  const itemsPath = (mediaSetRid) => `/api/v1/mediasets/${encodeURIComponent(mediaSetRid)}/items`;
  const itemPath = (mediaSetRid, mediaItemRid) => `${itemsPath(mediaSetRid)}/${encodeURIComponent(mediaItemRid)}`;
  const media = {
    /**
     * Puts an item at a path of a media set (`data`: Uint8Array, ArrayBuffer or Blob; options:
     * contentType, transactionId, branchName, mediaItemRid, onProgress({ loaded, total })). In
     * Node the bytes stream and onProgress follows them as they are sent; elsewhere (browsers do
     * not stream request bodies over HTTP/1.1) it is called at the start and at the end.
     */
    async upload(mediaSetRid, path, data, options = {}) {
      const { contentType, onProgress, ...rest } = options;
      const query = new URLSearchParams({ mediaItemPath: path });
      for (const name of ['transactionId', 'branchName', 'mediaItemRid']) if (rest[name] !== undefined) query.set(name, rest[name]);
      // A Blob (a File) knows its type.
      const bytes = new Bytes(data, contentType || data.type || 'application/octet-stream', onProgress);
      const item = await request('POST', `${itemsPath(mediaSetRid)}?${query}`, bytes);
      bytes.done();
      return item;
    },
    /** An item's path, type, size and SHA-256. */
    item: (mediaSetRid, mediaItemRid) => request('GET', itemPath(mediaSetRid, mediaItemRid)),
    /** The address of an item's bytes (read with this client's credential: `read`). */
    async url(mediaSetRid, mediaItemRid) {
      return `${(await current()).baseUrl}${itemPath(mediaSetRid, mediaItemRid)}/content`;
    },
    /** An item's bytes (`range: { start, end? }`: those bytes only), with its type and ETag. */
    read: async (mediaSetRid, mediaItemRid, options) => readContent(await media.url(mediaSetRid, mediaItemRid), options),
    /** Transforms an image item (`{ type: 'image', operations, encoding }`): the finished job. */
    transform: (mediaSetRid, mediaItemRid, transformation) =>
      request('POST', `${itemPath(mediaSetRid, mediaItemRid)}/transform`, { transformation }),
    /**
     * Uploads an item into an object type's media property through an upload session and answers
     * its mediaReference (`data`: Uint8Array, ArrayBuffer or Blob; options: contentType,
     * primaryKey, ontology, partSize, onProgress({ loaded, total }), signal). Parts of partSize
     * bytes (at most and by default 16 MiB) are sent in order, each retried once when the network
     * or the service failed it; onProgress covers the whole item (in Node as the bytes are sent,
     * elsewhere part by part). Then the session is completed and polled until its item is
     * assembled; FAILED throws SvcError with the failure's code. Without primaryKey (an app's
     * page) set the reference on an object through an action; with it (developers) the object is set.
     */
    async uploadToProperty(objectType, property, data, options = {}) {
      const { contentType, primaryKey, ontology, onProgress, signal } = options;
      const partSize = options.partSize ?? MAX_PART_BYTES;
      if (!Number.isInteger(partSize) || partSize < 1 || partSize > MAX_PART_BYTES) {
        throw new SvcError('invalid_payload', `partSize is a whole number of bytes from 1 to ${MAX_PART_BYTES}.`);
      }
      const whole = data instanceof ArrayBuffer ? new Uint8Array(data) : data;
      const total = whole.byteLength ?? whole.size;
      const mimeType = contentType || whole.type || 'application/octet-stream';
      const uploads = `/api/v1/ontologies/${encodeURIComponent(ontology ?? (await app()).namespace)}/objectTypes/${encodeURIComponent(objectType)}/media/${encodeURIComponent(property)}/uploads`;
      const session = await request('POST', uploads, { sizeBytes: total, mimeType, ...(primaryKey === undefined ? {} : { primaryKey }) });
      const at = `${uploads}/${encodeURIComponent(session.uploadId)}`;
      // Progress only moves forward: a part sent again is not counted twice.
      let reported = -1;
      const report = (loaded) => {
        if (loaded <= reported) return;
        reported = loaded;
        onProgress?.({ loaded, total });
      };
      report(0);
      try {
        for (let offset = 0, part = 1; offset < total; offset += partSize, part++) {
          const end = Math.min(total, offset + partSize);
          const slice = whole instanceof Uint8Array ? whole.subarray(offset, end) : whole.slice(offset, end);
          const put = () => {
            const bytes = new Bytes(slice, 'application/octet-stream', (p) => report(offset + p.loaded));
            return request('PUT', `${at}/parts/${part}`, bytes, {}, signal).then(() => bytes.done());
          };
          await put().catch((error) => (retryable(error) ? put() : Promise.reject(error)));
        }
        let state = await request('POST', `${at}/complete`, undefined, {}, signal);
        for (let wait = POLL_FIRST_MS; state.state === 'COMPLETING'; wait = Math.min(POLL_MAX_MS, wait * 2)) {
          await pause(wait, signal);
          state = await request('POST', `${at}/complete`, undefined, {}, signal);
        }
        if (state.state === 'COMPLETED') return state.mediaReference;
        // The session's own outcome (the answer itself was a success): no HTTP status.
        throw new SvcError(state.failure?.code ?? 'conflict', state.failure?.message ?? `Upload ${state.uploadId} is ${state.state}.`, {
          details: { uploadId: state.uploadId, state: state.state },
        });
      } catch (error) {
        // An abandoned session is dropped at once rather than left for the purge schedule.
        if (signal?.aborted) await request('DELETE', at).catch(() => {});
        throw error;
      }
    },
    /** The bytes of the item an object's media property references, read as the object is (`range`: those bytes only). */
    readOfObject: async (objectType, primaryKey, property, options) =>
      readContent(await objectMediaUrl(objectType, primaryKey, property, 'content'), options),
    /**
     * A thumbnail of the image an object's media property references: scaled to fit
     * `{ width?, height? }` (one at least; never enlarged), encoded as `format` (jpeg, png, webp; default jpeg).
     */
    thumbnailOfObject: async (objectType, primaryKey, property, { width, height, format } = {}) => {
      const query = new URLSearchParams();
      if (width !== undefined) query.set('width', String(width));
      if (height !== undefined) query.set('height', String(height));
      if (format !== undefined) query.set('format', format);
      return readContent(`${await objectMediaUrl(objectType, primaryKey, property, 'thumbnail')}?${query}`);
    },
  };

  const attachmentPath = (rid) => `/api/v1/ontologies/attachments/${encodeURIComponent(rid)}`;
  const objectAttachmentPath = async (objectType, primaryKey, property) =>
    `${await ontologyPath()}/objects/${encodeURIComponent(objectType)}/${encodeURIComponent(primaryKey)}/attachments/${encodeURIComponent(property)}`;
  const attachments = {
    /**
     * Uploads a file to attach to objects (`data`: Uint8Array, ArrayBuffer or Blob; options:
     * contentType, ontology, onProgress({ loaded, total }), as media.upload). Link it within the
     * hour through an action parameter of type attachment (its `rid`), or it is removed.
     */
    async upload(filename, data, options = {}) {
      const { contentType, onProgress, ontology } = options;
      const query = new URLSearchParams({ filename });
      if (ontology !== undefined) query.set('ontology', ontology);
      const bytes = new Bytes(data, contentType || data.type || 'application/octet-stream', onProgress);
      const attachment = await request('POST', `/api/v1/ontologies/attachments/upload?${query}`, bytes);
      bytes.done();
      return attachment;
    },
    /** An attachment's filename, size and media type, by rid (its uploader and the company's developers). */
    get: (rid) => request('GET', attachmentPath(rid)),
    /** An attachment's bytes by rid (`range: { start, end? }`), with its type and ETag. */
    read: async (rid, options) => readContent(`${(await current()).baseUrl}${attachmentPath(rid)}/content`, options),
    /** The attachment an object's attachment property holds (`{ type: 'single', rid, filename, sizeBytes, mediaType }`). */
    ofObject: async (objectType, primaryKey, property) => request('GET', await objectAttachmentPath(objectType, primaryKey, property)),
    /** The bytes of the attachment an object's property holds, read as the object is. */
    readOfObject: async (objectType, primaryKey, property, options) =>
      readContent(`${(await current()).baseUrl}${await objectAttachmentPath(objectType, primaryKey, property)}/content`, options),
  };

  const streams = {
    /**
     * Pushes records into a data stream of the company (`namespace`: default the app's), all or
     * none; a page's ticket pushes to the streams its manifest lists.
     */
    push: async (name, records, { namespace } = {}) =>
      request(
        'POST',
        `/api/v1/developer/streams/${encodeURIComponent(namespace ?? (await app()).namespace)}/${encodeURIComponent(name)}/records`,
        { records },
      ),
  };

  return {
    auth: { me },
    log,
    semantic,
    apis,
    evolve,
    media,
    attachments,
    streams,
    /** Renews the app ticket now (normally automatic). */
    renewTicket: renew,
    /** Any other API call with the same credential and envelope handling. */
    request,
    /** Stops the renewal timer. */
    close() {
      if (renewTimer) clearTimeout(renewTimer);
    },
  };
}
