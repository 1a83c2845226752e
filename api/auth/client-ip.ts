import type { Context } from 'koa';

/**
 * The caller's address. X-Forwarded-For is believed only when the direct peer
 * is a configured proxy; then the nearest address that is not one of ours wins.
 */
export function clientIp(ctx: Context, trustedProxies: readonly string[]): string {
  const peer = normalize(ctx.req.socket.remoteAddress ?? '');
  if (!trustedProxies.includes(peer)) return peer;
  const forwarded = ctx.get('x-forwarded-for');
  // A proxy's own calls carry none: no arrays to make for them.
  if (forwarded === '') return peer;
  const hops = forwarded
    .split(',')
    .map((s) => normalize(s.trim()))
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trustedProxies.includes(hops[i]!)) return hops[i]!;
  }
  return peer;
}

/** `::ffff:127.0.0.1` and `127.0.0.1` are the same caller. */
function normalize(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
