import { createHash, type Hash } from 'node:crypto';

/** A part as the session records it: its blob and its size. */
interface HashedPart {
  sha256: string;
  size: number;
}

interface RunningHash {
  /** The item's bytes so far: parts 1..count. */
  item: Hash;
  /** The list of those parts (hash and size of each, in order), to compare with the session's rows at assembly. */
  list: Hash;
  count: number;
  last: string;
}

const listEntry = (part: HashedPart) => `${part.sha256}:${part.size}\n`;

/**
 * The running SHA-256 of the items of upload sessions whose parts this process received in order
 * (1, 2, 3, …), so their assembly, run in this process, need not read the parts again to hash the
 * item. Only what this process hashed from bytes it stored counts, and only if the session's
 * recorded parts are exactly those: a part out of order, or other bytes under a number already
 * hashed, drops the session, and its assembly reads its parts (as it does in another process, after
 * a restart, or for a session evicted by the bound). The last part sent again with the same bytes
 * (a client's retry) changes nothing. Memory: a few hundred bytes per session, `maxSessions` at most
 * (the least recently fed go first).
 */
export class UploadHashes {
  readonly #sessions = new Map<string, RunningHash>();
  readonly #maxSessions: number;

  /** 1024 sessions by default: more uploading at once in one process than a deployment expects. */
  constructor(maxSessions = 1024) {
    this.#maxSessions = maxSessions;
  }

  /** Part `partNumber` of a session, once its bytes are stored under `part.sha256`. */
  received(uploadId: string, partNumber: number, part: HashedPart, bytes: Buffer): void {
    const session = this.#sessions.get(uploadId);
    if (session && partNumber === session.count && part.sha256 === session.last) return;
    this.#sessions.delete(uploadId);
    const next =
      session && partNumber === session.count + 1
        ? session
        : partNumber === 1
          ? { item: createHash('sha256'), list: createHash('sha256'), count: 0, last: '' }
          : undefined;
    if (!next) return;
    next.item.update(bytes);
    next.list.update(listEntry(part));
    next.count = partNumber;
    next.last = part.sha256;
    // Re-inserted: the map's order is the order sessions were last fed, oldest first.
    this.#sessions.set(uploadId, next);
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
