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

/**
 * The web session (its account and companies), shown as `#who`; without one the page goes to
 * sign-in and comes back here, and this answers null.
 */
export async function signedIn() {
  const session = await api('GET', '/api/v1/web/session');
  if (!session.ok) {
    location.assign(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`);
    return null;
  }
  document.getElementById('who').textContent = `Signed in as ${session.data.account.username}`;
  return session.data;
}

export function show(el, text, kind = '') {
  el.textContent = text;
  el.className = `message ${kind}`.trim();
  el.hidden = !text;
}

/**
 * Where to go after sign-in: the full address of a page of this site, else /device.
 * The full address, not just the path: location.assign reads a path such as `//evil.example`
 * as another host, and resolving `/.//evil.example` or `/%2e//evil.example` yields one.
 */
export function safeNext(value) {
  if (typeof value !== 'string' || !value.startsWith('/') || couldLeaveSite(value)) return '/device';
  const url = new URL(value, location.origin);
  return url.origin === location.origin ? url.href : '/device';
}

/**
 * Whether a path could be read as another host (`//host` or `/\host`) as written or once resolved,
 * also after decoding encoded dots, slashes, backslashes, tabs and newlines (so that a server or
 * proxy that decodes the path cannot make one of it). Browsers drop tabs and newlines and read a
 * backslash as a slash.
 * Run before the value is parsed, which `//[` would make throw.
 */
function couldLeaveSite(path) {
  const decoded = path.replace(/%(2e|2f|5c|09|0a|0d)/gi, (encoded) => decodeURIComponent(encoded));
  return [path, decoded].some((candidate) => {
    const plain = candidate.replace(/[\t\n\r]/g, '').replaceAll('\\', '/');
    return plain.startsWith('//') || new URL(plain, location.origin).pathname.startsWith('//');
  });
}
