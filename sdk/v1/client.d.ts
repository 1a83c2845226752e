// The SDK's public API, served after the generated wire types as semantic.d.ts. AuthMe,
// LogEvent, RecordEventsResult, the Evolve…, the Media… and Attachment types are the generated ones.
import type {
  Attachment,
  AuthMe,
  EvolveOverlay,
  EvolveProposal,
  EvolveProposalInput,
  ImageTransformation,
  LogEvent,
  MediaItem,
  MediaReference,
  MediaTransformationJob,
  RecordEventsResult,
} from './wire.d.ts';

export declare const SVC_ERROR_MARKER: 'svc-sdk-error';
export declare const ERRORS_PER_CLASS: 10;

/** Every failure: the service's error code (or `not_logged_in`, `network_error`), its HTTP status. */
export declare class SvcError extends Error {
  readonly marker: typeof SVC_ERROR_MARKER;
  readonly code: string;
  readonly status: number;
  readonly details?: unknown;
  readonly requestId?: string;
}
export declare function isSvcError(value: unknown): value is SvcError;

export interface ClientOptions {
  /** First in the discovery order; then SVC_API_KEY, the CLI's stored login (Node), the page's app ticket. */
  apiKey?: string;
  /** The service address; else SVC_BASE_URL, the stored login's, or where the SDK was loaded from. */
  baseUrl?: string;
  /** The app a key's calls are for (a ticket knows its own). */
  app?: { namespace: string; slug: string };
  /** false: do not read the CLI's stored login. */
  storedLogin?: boolean;
  fetch?: typeof fetch;
}

export interface MediaUploadOptions {
  /** The item's MIME type; default: a Blob's own type, else application/octet-stream. */
  contentType?: string;
  /** Stage the item in this open transaction of the set. */
  transactionId?: string;
  branchName?: string;
  /** The new item's rid, chosen by the caller (media_item_rid_already_exists when taken). */
  mediaItemRid?: string;
  /** In Node, as the bytes are sent; elsewhere at the start and at the end. */
  onProgress?(progress: { loaded: number; total: number }): void;
}

export interface PropertyUploadOptions {
  /** The item's MIME type; default: a Blob's own type, else application/octet-stream. */
  contentType?: string;
  /**
   * The object whose property the completed item sets (a direct edit: the company's developers and
   * restricted agent keys only). Without it (an app's page) set the returned reference through an action.
   */
  primaryKey?: string | number;
  /** The ontology (company namespace); default: the app's. */
  ontology?: string;
  /** Bytes per part, 1 to 16 MiB (the default); anything else is refused before a byte is sent (invalid_payload). */
  partSize?: number;
  /** Over the whole item, never backwards: in Node as the bytes are sent, elsewhere after each part. */
  onProgress?(progress: { loaded: number; total: number }): void;
  /** Aborting stops the upload (the promise rejects with the signal's reason) and deletes the session. */
  signal?: AbortSignal;
}

export interface ThumbnailOptions {
  /** The box the image is scaled to fit (one side at least, at most 4096; never enlarged). */
  width?: number;
  height?: number;
  /** Default jpeg. */
  format?: 'jpeg' | 'png' | 'webp';
}

export interface AttachmentUploadOptions {
  /** Default: the Blob's type, else application/octet-stream. */
  contentType?: string;
  /** The company (its namespace), for a web session of several companies. */
  ontology?: string;
  /** In Node, as the bytes are sent; elsewhere at the start and at the end. */
  onProgress?(progress: { loaded: number; total: number }): void;
}

/** Bytes read as content, with their type and strong ETag. */
export interface ContentRead {
  bytes: Uint8Array;
  contentType: string | null;
  etag: string | null;
}

export type Feedback = Omit<Extract<LogEvent, { kind: 'feedback' }>, 'kind'>;

export interface SvcClient {
  auth: { me(app?: { namespace: string; slug: string }): Promise<AuthMe> };
  log: {
    track(name: string, data?: Record<string, unknown>): Promise<RecordEventsResult>;
    feedback(feedback: Feedback): Promise<RecordEventsResult>;
    error(error: unknown, context?: Record<string, unknown>): Promise<RecordEventsResult & { dropped?: true }>;
    captureErrors(target?: EventTarget): () => void;
  };
  semantic: {
    search(type: string, query?: Record<string, unknown>): Promise<{ data: Record<string, unknown>[]; nextPageToken?: string }>;
    apply(action: string, parameters?: Record<string, unknown>, options?: { preview?: boolean }): Promise<unknown>;
  };
  apis: {
    list(): Promise<{ apis: { name: string; kind: 'query' | 'workflow'; input: Record<string, unknown> }[] }>;
    execute(
      name: string,
      input?: Record<string, unknown>,
      options?: { preview?: boolean; idempotencyKey?: string },
    ): Promise<{ replayed: boolean; run: unknown; result?: { data: Record<string, unknown>[] }; plan?: unknown }>;
  };
  evolve: {
    /** The improvements that apply to this visitor of the app (company-wide, then their own). */
    overlay(): Promise<EvolveOverlay>;
    /** Proposes changes of declared tokens and slots; from an app's page, personal for its own visitor. */
    propose(proposal: EvolveProposalInput): Promise<EvolveProposal>;
  };
  media: {
    upload(mediaSetRid: string, path: string, data: Uint8Array | ArrayBuffer | Blob, options?: MediaUploadOptions): Promise<MediaItem>;
    item(mediaSetRid: string, mediaItemRid: string): Promise<MediaItem>;
    /** The address of the item's bytes; they are read with a credential (`read`). */
    url(mediaSetRid: string, mediaItemRid: string): Promise<string>;
    read(
      mediaSetRid: string,
      mediaItemRid: string,
      options?: { range?: { start: number; end?: number } },
    ): Promise<{ bytes: Uint8Array; contentType: string | null; etag: string | null }>;
    transform(mediaSetRid: string, mediaItemRid: string, transformation: ImageTransformation): Promise<MediaTransformationJob>;
    /**
     * Uploads into an object type's media property in parts (an upload session), completes it and
     * waits for its assembly: the item's mediaReference. FAILED: SvcError with the failure's code.
     */
    uploadToProperty(
      objectType: string,
      property: string,
      data: Uint8Array | ArrayBuffer | Blob,
      options?: PropertyUploadOptions,
    ): Promise<MediaReference>;
    /** The bytes of the item an object's media property references, read as the object is. */
    readOfObject(
      objectType: string,
      primaryKey: string | number,
      property: string,
      options?: { range?: { start: number; end?: number } },
    ): Promise<ContentRead>;
    /** A thumbnail of the image an object's media property references, read as the object is. */
    thumbnailOfObject(objectType: string, primaryKey: string | number, property: string, options: ThumbnailOptions): Promise<ContentRead>;
  };
  attachments: {
    upload(filename: string, data: Uint8Array | ArrayBuffer | Blob, options?: AttachmentUploadOptions): Promise<Attachment>;
    get(rid: string): Promise<Attachment>;
    read(rid: string, options?: { range?: { start: number; end?: number } }): Promise<ContentRead>;
    ofObject(objectType: string, primaryKey: string | number, property: string): Promise<Attachment & { type: 'single' }>;
    readOfObject(
      objectType: string,
      primaryKey: string | number,
      property: string,
      options?: { range?: { start: number; end?: number } },
    ): Promise<ContentRead>;
  };
  streams: {
    /** Pushes records into a data stream (all or none); `namespace` defaults to the app's company. */
    push(
      name: string,
      records: Record<string, unknown>[],
      options?: { namespace?: string },
    ): Promise<{
      accepted: number;
      firstSequence: number;
      lastSequence: number;
      objectTypes: { objectType: string; objectsWritten: number }[];
    }>;
  };
  renewTicket(): Promise<{ ticket: string; expiresAt: string; channel: 'test' | 'production'; version: string }>;
  request<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
  close(): void;
}

export declare function createClient(options?: ClientOptions): SvcClient;
