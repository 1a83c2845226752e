import { api, show, signedIn } from './common.js';

// An application module page for the company's people: /web/modules?rid=<module rid>&page=<page id>.
// Evaluates the page with the session (the person's own permissions), runs actions through its
// forms, and evaluates again on each auto-refresh event. Every text goes in through textContent.

const params = new URLSearchParams(location.search);
const rid = params.get('rid') ?? '';
const base = `/api/v1/workshop/modules/${encodeURIComponent(rid)}`;
const message = document.getElementById('message');
const root = document.getElementById('widgets');
let pageId = params.get('page') ?? '';
let organization = '';
let source = null;
let after = null;
let lastSeq = null;
/** Each form's last answer by widget id: a render (after the action, or a refresh's) rebuilds the form, which shows it again. */
const formAnswers = new Map();

const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (className) node.className = className;
  return node;
};
const shown = (value) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
const properties = (object, columns) => (columns.length ? columns : Object.keys(object ?? {}).filter((key) => !key.startsWith('__')));

function table(w) {
  const columns = properties(w.objects[0], w.columns ?? []);
  const t = el('table', undefined, 'svc-table');
  const head = el('tr');
  for (const c of columns) head.append(el('th', c));
  t.append(el('thead'), el('tbody'));
  t.tHead.append(head);
  for (const o of w.objects) {
    const row = el('tr');
    row.dataset.key = shown(o.__primaryKey);
    for (const c of columns) row.append(el('td', shown(o[c])));
    t.tBodies[0].append(row);
  }
  const wrap = el('div');
  wrap.append(t, el('p', `${w.objects.length} of ${w.totalCount}`, 'svc-muted'));
  return wrap;
}

function objectView(w) {
  if (!w.object) return el('p', 'Nothing to show.', 'svc-muted');
  const list = el('dl');
  for (const key of properties(w.object, [])) list.append(el('dt', key), el('dd', shown(w.object[key])));
  return list;
}

function chart(w) {
  const list = el('ul', undefined, 'svc-stack');
  const max = Math.max(1, ...w.groups.map((g) => Number(g.value) || 0));
  for (const g of w.groups) {
    const item = el('li', `${shown(g.key)}: ${shown(g.value)}`);
    const bar = el('meter');
    bar.max = max;
    bar.value = Number(g.value) || 0;
    bar.setAttribute('aria-label', shown(g.key));
    item.append(bar);
    list.append(item);
  }
  return list;
}

function inputFor(name, parameter, kind, value) {
  const input = el('input', undefined, 'svc-input');
  input.name = name;
  input.id = `param-${name}-${Math.random().toString(36).slice(2)}`;
  if (kind === 'boolean') input.type = 'checkbox';
  else if (kind === 'number') input.type = 'number';
  if (value !== undefined && value !== null) {
    if (input.type === 'checkbox') input.checked = value === true;
    else input.value = String(value);
  }
  input.required = parameter.required && input.type !== 'checkbox';
  input.dataset.kind = input.type === 'number' ? 'number' : input.type === 'checkbox' ? 'boolean' : 'text';
  return input;
}

function form(w) {
  const f = el('form', undefined, 'svc-stack');
  for (const [name, parameter] of Object.entries(w.action.parameters)) {
    const input = inputFor(name, parameter, w.inputs?.[name], w.defaults?.[name]);
    const label = el('label', parameter.displayName ?? name);
    label.htmlFor = input.id;
    f.append(label, input);
  }
  const submit = el('button', w.action.displayName ?? w.action.apiName, 'svc-button');
  submit.type = 'submit';
  const result = el('p', '', 'svc-muted');
  result.setAttribute('role', 'status');
  const kept = formAnswers.get(w.id);
  if (kept) show(result, kept.text, kept.kind);
  const answer = (text, kind) => {
    formAnswers.set(w.id, { text, kind });
    show(result, text, kind);
  };
  f.append(submit, result);
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const parameters = {};
    for (const input of f.querySelectorAll('input')) {
      if (input.dataset.kind === 'boolean') parameters[input.name] = input.checked;
      else if (input.value !== '') parameters[input.name] = input.dataset.kind === 'number' ? Number(input.value) : input.value;
    }
    submit.disabled = true;
    const path = `/api/v1/ontologies/${encodeURIComponent(organization)}/actions/${encodeURIComponent(w.action.apiName)}/apply`;
    const res = await api('POST', path, { parameters });
    submit.disabled = false;
    if (!res.ok) return answer(res.error.message, 'svc-error');
    if (res.data.validation?.result === 'INVALID') return answer('The action’s conditions are not met.', 'svc-error');
    answer('Done.');
    await render();
  });
  return f;
}

const RENDER = {
  table,
  objectView,
  chart,
  form,
  metric: (w) => el('p', shown(w.value), 'metric'),
  markdown: (w) => {
    const block = el('div');
    for (const paragraph of w.text.split(/\n{2,}/)) block.append(el('p', paragraph.replace(/^#+\s*/, '')));
    return block;
  },
};

async function render() {
  const res = await api('POST', `${base}/evaluate`, { page: pageId });
  if (!res.ok) return show(message, res.error.message, 'svc-error');
  document.getElementById('title').textContent = res.data.page.title;
  const cards = res.data.widgets.map((w) => {
    const card = el('section', undefined, 'svc-card');
    card.dataset.widget = w.id;
    if (w.title) card.append(el('h2', w.title));
    card.append(w.error ? el('p', w.error.message, 'svc-error') : RENDER[w.type](w));
    return card;
  });
  root.replaceChildren(...cards);
  root.dataset.seq = lastSeq === null ? '' : String(lastSeq);
  return res.data;
}

/** Auto-refresh: evaluate again on each refresh; reconnect when asked; stop on `end` (never reconnect). */
function subscribe() {
  const query = new URLSearchParams({ page: pageId });
  if (after !== null) query.set('after', String(after));
  source = new EventSource(`${base}/autoRefresh?${query}`);
  source.addEventListener('refresh', async (e) => {
    lastSeq = JSON.parse(e.data).seq;
    after = lastSeq;
    await render();
  });
  source.addEventListener('reconnect', (e) => {
    after = JSON.parse(e.data).after;
    source.close();
    subscribe();
  });
  source.addEventListener('end', (e) => {
    source.close();
    show(message, `Updates stopped: ${JSON.parse(e.data).message}`, 'svc-error');
  });
  source.addEventListener('ready', (e) => {
    after = JSON.parse(e.data).seq;
    document.body.dataset.live = 'true';
  });
}

async function init() {
  const session = await signedIn();
  if (!session) return;
  const module = await api('GET', base);
  if (!module.ok) return show(message, module.error.message, 'svc-error');
  organization = module.data.organization;
  document.getElementById('module').textContent = module.data.name;
  if (!pageId) {
    const version = await api('GET', `${base}/versions/${module.data.publishedVersion ?? module.data.latestVersion}`);
    if (!version.ok) return show(message, version.error.message, 'svc-error');
    pageId = version.data.definition.pages[0].id;
  }
  const data = await render();
  if (data?.page.autoRefresh.enabled) subscribe();
}

init();
