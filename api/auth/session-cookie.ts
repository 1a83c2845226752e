import type { Context } from 'koa';
import { SESSION_TTL_SECONDS } from '../../domain/sessions/index.ts';

// Served over https the cookie takes the __Host- prefix (Secure, host-only,
// Path=/), which browsers refuse to let any other origin set or shadow.

export function sessionCookieName(baseUrl: string): string {
  return baseUrl.startsWith('https:') ? '__Host-svc_session' : 'svc_session';
}

export function readSessionCookie(ctx: Context, baseUrl: string): string | undefined {
  return readCookie(ctx, sessionCookieName(baseUrl));
}

export function readCookie(ctx: Context, name: string): string | undefined {
  for (const part of (ctx.get('cookie') || '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function writeSessionCookie(ctx: Context, baseUrl: string, value: string | null): void {
  const secure = baseUrl.startsWith('https:');
  const attributes = [
    `${sessionCookieName(baseUrl)}=${value ?? ''}`,
    'Path=/',
    'HttpOnly',
    'SameSite=Lax',
    `Max-Age=${value ? SESSION_TTL_SECONDS : 0}`,
    ...(secure ? ['Secure'] : []),
  ];
  ctx.append('Set-Cookie', attributes.join('; '));
}
