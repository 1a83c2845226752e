// Shared by the sign-in and device pages: JSON calls to the API from this origin.
export async function api(method, path, body) {
  const res = await fetch(path, {
    method,
    headers: body ? { 'content-type': 'application/json' } : {},
    body: body ? JSON.stringify(body) : undefined,
    credentials: 'same-origin',
  });
  const json = await res.json().catch(() => ({ ok: false, error: { code: 'internal_error', message: 'Unexpected answer.' } }));
  return { status: res.status, ...json };
}

export function show(el, text, kind = '') {
  el.textContent = text;
  el.className = `message ${kind}`.trim();
  el.hidden = !text;
}

/**
 * Only a page of this site, never another origin. Resolved the way the browser
 * will resolve it, so tricks such as `/\t/evil.example` or `/\\evil.example` fail.
 */
export function safeNext(value) {
  if (typeof value !== 'string' || !value.startsWith('/')) return '/device';
  const url = new URL(value, location.origin);
  return url.origin === location.origin ? url.pathname + url.search + url.hash : '/device';
}
