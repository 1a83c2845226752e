/**
 * Bytes of request bodies held whole in memory at once (JSON bodies, media items, upload parts,
 * attachments, images to detect in): at most `total` in this process, and at most half of that
 * for one tenant, so one company's uploads never take the memory every other request needs. A body
 * reserves its declared length before it is read (its chunks as they come when it declares none)
 * and gives it back when its answer is sent or its connection ends.
 */
export class BodyBuffer {
  private used = 0;
  private readonly byTenant = new Map<string, number>();

  readonly totalBytes: number;

  constructor(totalBytes: number) {
    this.totalBytes = totalBytes;
  }

  /** Whether `bytes` more fit now; if so they are taken. */
  reserve(tenant: string, bytes: number): boolean {
    const mine = this.byTenant.get(tenant) ?? 0;
    if (this.used + bytes > this.totalBytes || mine + bytes > this.totalBytes / 2) return false;
    this.used += bytes;
    this.byTenant.set(tenant, mine + bytes);
    return true;
  }

  release(tenant: string, bytes: number): void {
    this.used -= bytes;
    const left = (this.byTenant.get(tenant) ?? 0) - bytes;
    if (left > 0) this.byTenant.set(tenant, left);
    else this.byTenant.delete(tenant);
  }

  /** Bytes held now, in all and by one tenant. */
  held(tenant?: string): number {
    return tenant === undefined ? this.used : (this.byTenant.get(tenant) ?? 0);
  }
}
