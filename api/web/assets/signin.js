import { api, safeNext, show } from './common.js';

const next = safeNext(new URLSearchParams(location.search).get('next'));
const form = document.getElementById('signin');
const change = document.getElementById('change');
const message = document.getElementById('message');

form.addEventListener('submit', async (event) => {
  event.preventDefault();
  show(message, '');
  const login = form.login.value;
  const password = form.password.value;
  const res = await api('POST', '/api/v1/web/sessions', { login, password });
  if (res.ok) return location.assign(next);
  if (res.error.code === 'password_change_required') {
    form.hidden = true;
    change.hidden = false;
    change.dataset.login = login;
    change.dataset.password = password;
    return show(message, 'Your password is temporary. Choose a new one to continue.');
  }
  show(message, res.error.code === 'invalid_credentials' ? 'Wrong login or password.' : res.error.message, 'error');
});

change.addEventListener('submit', async (event) => {
  event.preventDefault();
  const { login, password } = change.dataset;
  const newPassword = change.newPassword.value;
  if (newPassword !== change.confirmPassword.value) return show(message, 'The two new passwords differ.', 'error');
  const res = await api('POST', '/api/v1/web/password', { login, currentPassword: password, newPassword });
  if (!res.ok) {
    const problem = res.error.details?.problems?.[0];
    return show(message, problem ? `New password: ${problem.message}` : res.error.message, 'error');
  }
  const signedIn = await api('POST', '/api/v1/web/sessions', { login, password: newPassword });
  if (signedIn.ok) return location.assign(next);
  show(message, signedIn.error.message, 'error');
});
