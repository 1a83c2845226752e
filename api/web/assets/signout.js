import { api, show } from './common.js';

// The platform pages have no script (their CSP): their "Sign out" links here, where a click ends the session.
const message = document.getElementById('message');
const button = document.getElementById('signout');

async function init() {
  const session = await api('GET', '/api/v1/web/session');
  if (!session.ok) {
    document.getElementById('who').textContent = 'You are not signed in.';
    return;
  }
  document.getElementById('who').textContent = `Signed in as ${session.data.account.username}`;
  button.hidden = false;
}

button.addEventListener('click', async () => {
  const res = await api('DELETE', '/api/v1/web/sessions/current');
  if (!res.ok) return show(message, res.error.message, 'error');
  location.assign('/');
});
init();
