import { api, safeNext, show } from './common.js';

const params = new URLSearchParams(location.search);
const next = safeNext(params.get('next'));
const invitation = params.get('invitation');
const form = document.getElementById('signin');
const change = document.getElementById('change');
const activate = document.getElementById('activate');
const message = document.getElementById('message');

// An invitation link (member import): the pending account chooses its first password here.
if (invitation) {
  form.hidden = true;
  activate.hidden = false;
  activate.activatePassword.focus();
}

activate.addEventListener('submit', async (event) => {
  event.preventDefault();
  const password = activate.activatePassword.value;
  if (password !== activate.activateConfirm.value) return show(message, 'The two passwords differ.', 'error');
  const res = await api('POST', '/api/v1/web/invitations/accept', { invitation, password });
  if (!res.ok) {
    const problem = res.error.details?.problems?.[0];
    return show(message, problem ? `Password: ${problem.message}` : res.error.message, 'error');
  }
  const signedIn = await api('POST', '/api/v1/web/sessions', { login: res.data.email, password });
  if (signedIn.ok) return location.assign(next);
  show(message, signedIn.error.message, 'error');
});

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  show(message, '');
  const res = await api('POST', '/api/v1/web/sessions', { login: form.login.value, password: form.password.value });
  if (res.ok) return location.assign(next);
  if (res.error.code === 'password_change_required') {
    // The change form asks for the temporary password again rather than the page keeping it anywhere.
    form.password.value = '';
    form.hidden = true;
    change.hidden = false;
    change.currentPassword.focus();
    return show(message, 'Your password is temporary. Enter it again and choose a new one to continue.');
  }
  show(message, res.error.code === 'invalid_credentials' ? 'Wrong login or password.' : res.error.message, 'error');
});

change.addEventListener('submit', async (event) => {
  event.preventDefault();
  const login = form.login.value;
  const newPassword = change.newPassword.value;
  if (newPassword !== change.confirmPassword.value) return show(message, 'The two new passwords differ.', 'error');
  const res = await api('POST', '/api/v1/web/password', { login, currentPassword: change.currentPassword.value, newPassword });
  if (!res.ok) {
    if (res.error.code === 'invalid_credentials') return show(message, 'Wrong temporary password.', 'error');
    const problem = res.error.details?.problems?.[0];
    return show(message, problem ? `New password: ${problem.message}` : res.error.message, 'error');
  }
  const signedIn = await api('POST', '/api/v1/web/sessions', { login, password: newPassword });
  if (signedIn.ok) return location.assign(next);
  show(message, signedIn.error.message, 'error');
});
