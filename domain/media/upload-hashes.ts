import { createHash, type Hash } from 'node:crypto';

/** A part as the session records it: its blob and its size. */
interface HashedPart {
  sha256: string;
  size: number;
}

/** One state of a session's running hash; never changed once kept (the next part makes a new one). */
interface RunningHash {
  /** The item's bytes so far: parts 1..count. */
  item: Hash;
  /** The list of those parts (hash and size of each, in order), to compare with the session's rows at assembly. */
  list: Hash;
  count: number;
  last: string;
}

/** The item's hash continued with one part's bytes as they arrive (`update` with each chunk, in order). */
export interface PartFeed {
  update(chunk: Buffer): void;
}

/** A hash of a state to continue (a copy: kept states never change), or a new one for the item's first part. */
const continuing = (from: RunningHash | null, which: 'item' | 'list'): Hash => (from ? from[which].copy() : createHash('sha256'));

/** A feed and the state it continues (null: the item's first bytes). */
class Feed implements PartFeed {
  readonly uploadId: string;
  readonly partNumber: number;
  readonly from: RunningHash | null;
  readonly item: Hash;

  constructor(uploadId: string, partNumber: number, from: RunningHash | null) {
    this.uploadId = uploadId;
    this.partNumber = partNumber;
    this.from = from;
    this.item = continuing(from, 'item');
  }

  update(chunk: Buffer): void {
    this.item.update(chunk);
  }
}

const listEntry = (part: HashedPart) => `${part.sha256}:${part.size}\n`;

/** The state part `partNumber` continues: the session's when it is the next in order, a new one for part 1; none otherwise. */
const continued = (session: RunningHash | undefined, partNumber: number): RunningHash | null | undefined =>
  session && partNumber === session.count + 1 ? session : partNumber === 1 ? null : undefined;

/**
 * The running SHA-256 of the items of upload sessions whose parts this process received in order
 * (1, 2, 3, …), so their assembly, run in this process, need not read the parts again to hash the
 * item. Only what this process hashed from bytes it stored counts, and only if the session's
 * recorded parts are exactly those: a part out of order, or other bytes under a number already
 * hashed, drops the session, and its assembly reads its parts (as it does in another process, after
 * a restart, or for a session evicted by the bound). The last part sent again with the same bytes
 * (a client's retry) changes nothing. Memory: a few hundred bytes per session, `maxSessions` at most
 * (the least recently fed go first).
 *
 * A part's bytes are hashed as they arrive (`begin`), on a copy of the state they continue, so no
 * hashing waits after the part's last byte; the session takes the result only once the part is
 * stored (`received`), and only if it is still in that state (else `received` hashes the bytes).
 */
export class UploadHashes {
  readonly #sessions = new Map<string, RunningHash>();
  readonly #maxSessions: number;

  /** 1024 sessions by default: more uploading at once in one process than a deployment expects. */
  constructor(maxSessions = 1024) {
    this.#maxSessions = maxSessions;
  }

  /**
   * A feed for part `partNumber` of a session whose bytes are about to arrive, when the part would
   * continue the running hash as it is now; undefined otherwise. It changes nothing by itself: a part
   * never stored (refused, cut short) leaves the session as it was.
   */
  begin(uploadId: string, partNumber: number): PartFeed | undefined {
    const from = continued(this.#sessions.get(uploadId), partNumber);
    if (from === undefined) return undefined;
    return new Feed(uploadId, partNumber, from);
  }

  /** Part `partNumber` of a session, once its bytes are stored under `part.sha256`; `fed`: its feed from `begin`, if any. */
  received(uploadId: string, partNumber: number, part: HashedPart, bytes: Buffer, fed?: PartFeed): void {
    const session = this.#sessions.get(uploadId);
    if (session && partNumber === session.count && part.sha256 === session.last) return;
    this.#sessions.delete(uploadId);
    const from = continued(session, partNumber);
    if (from === undefined) return;
    const item =
      fed instanceof Feed && fed.uploadId === uploadId && fed.partNumber === partNumber && fed.from === from
        ? fed.item
        : // No feed, or one begun from a state the session has left since (a part received meanwhile).
          continuing(from, 'item').update(bytes);
    const list = continuing(from, 'list').update(listEntry(part));
    // Inserted last: the map's order is the order sessions were last fed, oldest first.
    this.#sessions.set(uploadId, { item, list, count: partNumber, last: part.sha256 });
    if (this.#sessions.size > this.#maxSessions) this.#sessions.delete(this.#sessions.keys().next().value!);
  }

  /** The item's SHA-256 when `parts` (the session's, in order) are exactly the parts hashed here; undefined otherwise. */
  itemHash(uploadId: string, parts: readonly HashedPart[]): string | undefined {
    const session = this.#sessions.get(uploadId);
    if (!session || session.count !== parts.length) return undefined;
    const list = createHash('sha256');
    for (const part of parts) list.update(listEntry(part));
    if (!list.digest().equals(session.list.copy().digest())) return undefined;
    return session.item.copy().digest('hex');
  }

  /** Drops a session (its assembly is done with it). */
  forget(uploadId: string): void {
    this.#sessions.delete(uploadId);
  }
}
