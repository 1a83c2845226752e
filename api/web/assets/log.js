import { api, show, signedIn } from './common.js';

// The app log page: /web/log?namespace=<ns>&slug=<slug>. Reads the log API with the session;
// every text goes in through textContent, never as HTML.

const params = new URLSearchParams(location.search);
const namespace = params.get('namespace') ?? '';
const slug = params.get('slug') ?? '';
const base = `/api/v1/developer/log/${encodeURIComponent(namespace)}`;
const message = document.getElementById('message');
const filters = document.getElementById('filters');
const rows = document.getElementById('events');
const more = document.getElementById('more');
const SVG = 'http://www.w3.org/2000/svg';
let cursor = null;

const el = (tag, text, className) => {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (className) node.className = className;
  return node;
};

/** Usage by day as SVG bars, one per day, with the count in each bar's title. */
function drawChart(days) {
  const svg = document.getElementById('chart');
  svg.replaceChildren();
  const width = 600;
  const height = 120;
  const max = Math.max(1, ...days.map((d) => d.count));
  const step = width / days.length;
  svg.setAttribute('viewBox', `0 0 ${width} ${height + 16}`);
  days.forEach((d, i) => {
    const h = Math.round((d.count / max) * height);
    const bar = document.createElementNS(SVG, 'rect');
    bar.setAttribute('x', String(i * step + 1));
    bar.setAttribute('y', String(height - h));
    bar.setAttribute('width', String(Math.max(1, step - 2)));
    bar.setAttribute('height', String(h));
    bar.setAttribute('class', 'bar');
    bar.setAttribute('data-day', d.day);
    bar.setAttribute('data-count', String(d.count));
    const title = document.createElementNS(SVG, 'title');
    title.textContent = `${d.day}: ${d.count}`;
    bar.append(title);
    svg.append(bar);
  });
  const label = (x, text, anchor) => {
    const t = document.createElementNS(SVG, 'text');
    t.setAttribute('x', String(x));
    t.setAttribute('y', String(height + 13));
    t.setAttribute('text-anchor', anchor);
    t.textContent = text;
    svg.append(t);
  };
  if (days.length) {
    label(0, days[0].day, 'start');
    label(width, days[days.length - 1].day, 'end');
  }
}

async function loadSummary() {
  const res = await api('GET', `${base}/summary?slug=${encodeURIComponent(slug)}&days=30`);
  if (!res.ok) return show(message, res.error.message, 'error');
  showSummary(res.data);
}

function showSummary(s) {
  const figures = document.getElementById('figures');
  figures.replaceChildren(
    ...[
      ['Visitors', s.visitors],
      ['Usage', s.counts.usage],
      ['Feedback', s.counts.feedback],
      ['Open feedback', s.openFeedback.count],
      ['Errors', s.counts.error + s.errors.counted],
      ['Live version', s.semanticVersions.live ?? '–'],
    ].map(([name, value]) => {
      const item = el('li');
      item.append(el('strong', String(value)), el('span', ` ${name}`));
      item.dataset.figure = name;
      return item;
    }),
  );
  drawChart(s.usageByDay);
}

function statusButtons(event) {
  const cell = el('td');
  if (event.kind !== 'feedback') return cell;
  cell.append(el('span', event.status, `status ${event.status}`));
  const moves =
    {
      open: [['planned', 'Plan']],
      planned: [
        ['done', 'Done'],
        ['dismissed', 'Dismiss'],
      ],
    }[event.status] ?? [];
  for (const [status, label] of moves) {
    const button = el('button', label, 'secondary');
    button.type = 'button';
    button.addEventListener('click', async () => {
      const res = await api('PATCH', `${base}/events/${encodeURIComponent(event.id)}`, { status });
      if (!res.ok) return show(message, res.error.message, 'error');
      show(message, `Feedback marked ${status}.`);
      await reload();
    });
    cell.append(' ', button);
  }
  return cell;
}

/** A value of a record's data as a person reads it: nested objects as `key: value` too, never JSON. */
function readable(value) {
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return value.map(readable).join(', ');
  return Object.entries(value)
    .map(([key, v]) => `${key}: ${readable(v)}`)
    .join(', ');
}

function details(event) {
  const d = event.data ?? {};
  if (event.kind === 'feedback') return [d.rating ? `${d.rating}/5` : '', d.message ?? ''].filter(Boolean).join(' · ');
  if (event.kind === 'error') return `${d.error?.message ?? ''}${d.context?.where ? ` (at ${d.context.where})` : ''}`;
  // Fields a record leaves empty (no share, no notes) say nothing.
  return Object.entries(d)
    .filter(([, value]) => value !== null && value !== undefined)
    .map(([key, value]) => `${key}: ${readable(value)}`)
    .join(' · ');
}

function addRow(event) {
  const tr = el('tr');
  tr.dataset.kind = event.kind;
  tr.dataset.id = event.id;
  tr.append(
    el('td', event.at.replace('T', ' ').slice(0, 19)),
    el('td', event.kind),
    el('td', event.name),
    el('td', event.visitor?.username ?? event.visitor?.id ?? ''),
    el('td', event.version ?? ''),
    el('td', details(event)),
    statusButtons(event),
  );
  rows.append(tr);
}

async function loadEvents(append) {
  const query = new URLSearchParams({ slug, limit: '50' });
  for (const name of ['kind', 'name', 'username', 'status']) if (filters[name].value) query.set(name, filters[name].value.trim());
  if (append && cursor) query.set('cursor', cursor);
  const res = await api('GET', `${base}/events?${query}`);
  if (!res.ok) return show(message, res.error.message, 'error');
  if (!append) rows.replaceChildren();
  res.data.events.forEach(addRow);
  cursor = res.data.nextCursor;
  more.hidden = !cursor;
}

const reload = () => Promise.all([loadSummary(), loadEvents(false)]);

async function init() {
  const session = await signedIn();
  if (!session) return;
  document.getElementById('app').textContent = `${namespace}/${slug}`;
  // The interface shows only once the log answers: a member, or anyone else it refuses, sees why and nothing more.
  const first = await api('GET', `${base}/summary?slug=${encodeURIComponent(slug)}&days=30`);
  if (!first.ok) {
    const refused = first.status === 403 ? 'Only the app’s developers read its log.' : first.error.message;
    return show(message, refused, 'error');
  }
  document.getElementById('log').hidden = false;
  showSummary(first.data);
  filters.addEventListener('submit', (e) => {
    e.preventDefault();
    loadEvents(false);
  });
  more.addEventListener('click', () => loadEvents(true));
  await loadEvents(false);
}

init();
