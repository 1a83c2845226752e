import { api, show, signedIn } from './common.js';

const message = document.getElementById('message');
const enter = document.getElementById('enter');
const confirm = document.getElementById('confirm');
const done = document.getElementById('done');
const companySelect = document.getElementById('company');
let userCode = '';

const STATES = {
  unknown: 'We don’t know that code. Check it and try again.',
  expired: 'This code has expired. Start the login again on your device.',
  used: 'This code was already used.',
  approved: 'This login was already approved.',
  denied: 'This login was already denied.',
};

async function init() {
  const session = await signedIn();
  if (!session) return;
  for (const c of session.companies) {
    const option = document.createElement('option');
    option.value = c.cellId;
    option.textContent = `${c.name} (${c.cellId}) as ${c.role}`;
    companySelect.append(option);
  }
  if (session.companies.length === 0) {
    enter.hidden = true;
    return show(message, 'Your account belongs to no company yet, so it cannot approve a login.', 'error');
  }
  const code = new URLSearchParams(location.search).get('code');
  enter.hidden = false;
  if (code) {
    enter.code.value = code;
    await lookup();
  }
}

async function lookup() {
  show(message, '');
  const res = await api('GET', `/api/v1/web/device-codes/${encodeURIComponent(enter.code.value.trim())}`);
  if (!res.ok) {
    const text = res.error.code === 'invalid_path' ? 'A code has eight letters, like BCDF-GHJK.' : res.error.message;
    return show(message, text, 'error');
  }
  if (res.data.state !== 'pending') return show(message, STATES[res.data.state], 'error');
  userCode = res.data.userCode;
  document.getElementById('client').textContent = res.data.clientName;
  document.getElementById('shown-code').textContent = userCode;
  enter.hidden = true;
  confirm.hidden = false;
}

async function decide(decision) {
  const res = await api('POST', '/api/v1/developer/device-codes/decision', { userCode, decision, cellId: companySelect.value });
  if (!res.ok) return show(message, res.error.code === 'device_code_expired' ? STATES.expired : res.error.message, 'error');
  confirm.hidden = true;
  done.hidden = false;
  show(
    message,
    decision === 'approve'
      ? `Approved for ${res.data.company.name} as ${res.data.company.role}. You can return to your terminal.`
      : 'Denied. The device will not be signed in.',
    'success',
  );
}

enter.addEventListener('submit', (event) => {
  event.preventDefault();
  lookup();
});
document.getElementById('approve').addEventListener('click', () => decide('approve'));
document.getElementById('deny').addEventListener('click', () => decide('deny'));
document.getElementById('signout').addEventListener('click', async () => {
  await api('DELETE', '/api/v1/web/sessions/current');
  location.assign(`/signin?next=${encodeURIComponent(location.pathname + location.search)}`);
});
init();
