import { api, show, signedIn } from './common.js';

// The OAuth authorization page (/oauth/authorize): after web sign-in, the person approves or
// denies an MCP host acting for them in one app. Unknown request parameters are ignored (RFC 6749 3.1).
const PARAMS = ['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method', 'resource', 'state', 'scope'];
const message = document.getElementById('message');
const confirm = document.getElementById('confirm');
const query = new URLSearchParams(location.search);
const request = Object.fromEntries(PARAMS.filter((name) => query.has(name)).map((name) => [name, query.get(name)]));

async function init() {
  const session = await signedIn();
  if (!session) return;
  const res = await api('GET', `/api/v1/oauth/authorization?${new URLSearchParams(request)}`);
  if (!res.ok) return show(message, res.error.message, 'error');
  document.getElementById('client').textContent = res.data.client.name;
  document.getElementById('app').textContent = `${res.data.app.title} (${res.data.app.namespace}/${res.data.app.slug})`;
  document.getElementById('role').textContent = res.data.role;
  document.getElementById('redirect').textContent = new URL(res.data.client.redirectUri).origin;
  confirm.hidden = false;
}

async function decide(decision) {
  const res = await api('POST', '/api/v1/oauth/authorization', { ...request, decision });
  if (!res.ok) return show(message, res.error.message, 'error');
  confirm.hidden = true;
  show(message, decision === 'approve' ? 'Approved. Returning to the host…' : 'Denied. Returning to the host…', 'success');
  location.assign(res.data.redirectTo);
}

document.getElementById('approve').addEventListener('click', () => decide('approve'));
document.getElementById('deny').addEventListener('click', () => decide('deny'));
document.getElementById('signout').addEventListener('click', async () => {
  await api('DELETE', '/api/v1/web/sessions/current');
  location.assign(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`);
});
init();
