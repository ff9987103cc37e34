// The console page's script, shipped inline with the page: reads the API with the token, follows
// the server-sent event stream of log heads and redraws what changed, and posts actions. Plain
// DOM: no framework, nothing fetched from outside. (Kept free of backquotes: it is a TS string.)
export const CONSOLE_SCRIPT = String.raw`
'use strict';
const token = new URLSearchParams(location.search).get('token') || '';
const $ = (id) => document.getElementById(id);
const open = { delivery: null, resource: null, headers: new Set() };
// State hashes computed on request, by twin: shown while the twin's head stays where it was.
const hashes = new Map();

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'className') el.className = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}
const short = (s, n) => (s == null ? '-' : String(s).length > n ? String(s).slice(0, n) + '…' : String(s));
const dash = (v) => (v === null || v === undefined || v === '' ? '-' : String(v));

async function api(path) {
  const res = await fetch(path, { headers: { 'x-twinworld-token': token } });
  const body = await res.json();
  if (!res.ok) throw new Error((body.error || res.status) + ': ' + (body.message || ''));
  return body;
}
async function act(name, body) {
  const msg = $('message');
  msg.className = '';
  msg.textContent = name + '…';
  try {
    const res = await fetch('api/actions/' + name, {
      method: 'POST',
      headers: { 'x-twinworld-token': token, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const out = await res.json();
    if (!res.ok) {
      msg.className = 'error';
      msg.textContent = 'refused ' + out.error + ': ' + out.message;
      return;
    }
    const a = out.answer || {};
    msg.textContent = name + ' done' + (a.outcome ? ': ' + a.outcome + ' ' + dash(a.status) : '');
  } catch (e) {
    msg.className = 'error';
    msg.textContent = String(e);
  }
  await refresh();
}
function keyActivate(fn) {
  return (e) => {
    if (e.target !== e.currentTarget) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); fn(); }
  };
}
function fill(select, values, keep) {
  const current = select.value;
  select.replaceChildren(h('option', { value: '' }, 'any'), ...values.map((v) => h('option', { value: v[0] }, v[1])));
  select.value = values.some((v) => v[0] === current) ? current : keep || '';
}

function hashCell(t) {
  const known = hashes.get(t.name);
  if (known && known.head === t.head) return h('td', { className: 'mono', title: known.hash }, short(known.hash, 23));
  // Reads every live resource of the twin, so only when asked.
  const button = h('button', { type: 'button', 'aria-label': 'compute the state hash of ' + t.name }, 'compute');
  button.addEventListener('click', async () => {
    button.disabled = true;
    button.textContent = 'computing…';
    try {
      const out = await api('api/hash?twin=' + encodeURIComponent(t.name));
      if (out.head === null) throw new Error('the twin took writes while its hash was read; compute again once it is still');
      // Keyed by the head the server read it at, not this row's: the row may be older than the
      // answer, and the redraw shows the hash in whichever row holds that head.
      hashes.set(t.name, { head: out.head, hash: out.hash });
      await refresh();
    } catch (e) {
      button.disabled = false;
      button.textContent = 'compute';
      $('message').className = 'error';
      $('message').textContent = String(e);
    }
  });
  return h('td', { className: 'mono' }, button);
}

async function drawOverview() {
  const o = await api('api/overview');
  $('clock').textContent = o.clock.now;
  $('clock-kind').textContent = o.clock.virtual ? '(virtual)' : '(real)';
  $('advance-clock').disabled = !o.clock.virtual;
  $('twins-body').replaceChildren(...o.twins.map((t) =>
    h('tr', {}, h('td', {}, t.name), h('td', {}, t.head), h('td', { className: 'mono', title: t.chain || '' }, short(t.chain, 16)),
      hashCell(t))));
  const sel = $('r-twin');
  const cur = sel.value;
  sel.replaceChildren(...o.twins.map((t) => h('option', { value: t.name }, t.name)));
  // First time: the busiest twin, which is what someone opening the console came to see.
  if (o.twins.some((t) => t.name === cur)) sel.value = cur;
  else if (o.twins.length > 0) sel.value = o.twins.reduce((a, b) => (b.head > a.head ? b : a)).name;
}

function attemptsDetail(data) {
  const d = data.delivery;
  const rows = data.attempts.map((a) =>
    h('div', { className: 'attempt', 'data-attempt': a.number },
      h('h3', {}, 'Attempt ' + a.number + ' (' + a.kind + ')'),
      h('dl', {},
        h('dt', {}, 'time'), h('dd', {}, dash(a.startedAt)),
        h('dt', {}, 'status'), h('dd', { className: 'attempt-status' }, dash(a.status)),
        h('dt', {}, 'duration'), h('dd', {}, a.durationMs === null ? '-' : a.durationMs + ' ms'),
        h('dt', {}, 'outcome'), h('dd', { className: 'state-' + a.state }, a.state + (a.reason ? ' (' + a.reason + ')' : '')),
        h('dt', {}, 'sent to'), h('dd', { className: 'mono' }, dash(a.url))),
      h('details', { open: open.headers.has(d.id + '.' + a.number), ontoggle: (e) => {
        const key = d.id + '.' + a.number;
        if (e.target.open) open.headers.add(key); else open.headers.delete(key);
      } }, h('summary', {}, 'headers sent'),
        h('table', { className: 'headers' }, Object.entries(a.headers || {}).map(([k, v]) =>
          h('tr', {}, h('th', { className: 'mono' }, k), h('td', { className: 'mono' }, v)))))));
  const to = h('input', { id: 'redeliver-to', type: 'url', placeholder: d.url, size: 40 });
  return h('td', { colspan: 8, className: 'detail' },
    h('dl', {},
      h('dt', {}, 'event'), h('dd', { className: 'mono' }, d.eventId + ' ' + d.eventType),
      h('dt', {}, 'endpoint URL'), h('dd', { className: 'mono' }, d.url),
      h('dt', {}, 'next retry'), h('dd', {}, data.nextRetryAt ? data.nextRetryAt + ' (world clock)' : '-')),
    rows.length === 0 ? h('p', { className: 'muted' }, 'no attempts yet') : rows,
    h('div', { className: 'filters' },
      h('label', { for: 'redeliver-to' }, 'Redeliver to (empty: the endpoint)', to),
      h('button', { type: 'button', id: 'redeliver', onclick: () => act('redeliver', { delivery: d.id, to: to.value || undefined }) }, 'Redeliver')));
}

async function drawDeliveries() {
  const q = new URLSearchParams();
  for (const k of ['state', 'event', 'endpoint', 'pack']) { const v = $('f-' + k).value; if (v) q.set(k, v); }
  const data = await api('api/deliveries?' + q);
  fill($('f-event'), data.events.map((e) => [e, e]));
  fill($('f-endpoint'), data.endpoints.map((e) => [e.id, e.pack + ' ' + e.id]));
  fill($('f-pack'), data.packs.map((p) => [p, p]));
  const rows = [];
  for (const d of data.deliveries) {
    const toggle = () => { open.delivery = open.delivery === d.id ? null : d.id; void drawDeliveries(); };
    rows.push(h('tr', { tabindex: 0, id: 'row-' + d.id, 'data-delivery': d.id, 'aria-expanded': open.delivery === d.id ? 'true' : 'false', onclick: toggle, onkeydown: keyActivate(toggle) },
      h('td', { className: 'mono' }, d.id), h('td', {}, d.pack), h('td', {}, d.eventType), h('td', { className: 'mono' }, d.endpoint),
      h('td', { className: 'state-' + d.state }, d.state), h('td', {}, d.attempts), h('td', {}, dash(d.lastStatus)), h('td', {}, d.createdAt)));
    if (open.delivery === d.id) {
      const detail = await api('api/attempts?delivery=' + encodeURIComponent(d.id));
      rows.push(h('tr', { id: 'delivery-detail' }, attemptsDetail(detail)));
    }
  }
  const keepFocus = document.activeElement && document.activeElement.id;
  const keepTo = $('redeliver-to') ? $('redeliver-to').value : '';
  $('deliveries-body').replaceChildren(...(rows.length ? rows : [h('tr', {}, h('td', { colspan: 8, className: 'muted' }, 'no deliveries'))]));
  if ($('redeliver-to')) $('redeliver-to').value = keepTo;
  if (keepFocus && $(keepFocus)) $(keepFocus).focus();
  $('endpoints-body').replaceChildren(...data.endpoints.map((e) => {
    const r = e.recent;
    return h('tr', { 'data-endpoint': e.id },
      h('td', {}, e.pack), h('td', { className: 'mono' }, e.id), h('td', { className: 'mono' }, e.url), h('td', {}, e.events.join(', ')),
      h('td', { className: e.enabled ? 'ok' : 'bad' }, e.enabled ? 'enabled' : 'disabled'),
      h('td', {}, r.rate === null ? '-' : Math.round(r.rate * 100) + '% of ' + r.settled),
      h('td', {}, h('button', { type: 'button', onclick: () => act(e.enabled ? 'endpoint.disable' : 'endpoint.enable', { endpoint: e.id, pack: e.pack }) }, e.enabled ? 'Disable' : 'Enable')));
  }));
}

async function drawTriggers() {
  const rows = await api('api/triggers');
  $('triggers-body').replaceChildren(...rows.map((r) => h('tr', {},
    h('td', {}, r.seq), h('td', {}, r.receivedAt), h('td', {}, r.tenantId), h('td', {}, dash(r.sourceKind) + '/' + dash(r.provider)),
    h('td', {}, dash(r.triggerId)), h('td', {}, r.status), h('td', {}, r.byCode ? Object.entries(r.byCode).map(([c, n]) => c + '×' + n).join(' ') : dash(r.code)),
    h('td', { className: 'mono' }, short(r.dedupeKey, 48)))));
}

async function drawSchedules() {
  const rows = await api('api/schedules');
  $('schedules-body').replaceChildren(...rows.map((s) => h('tr', { 'data-schedule': s.scheduleId },
    h('td', {}, s.scheduleId), h('td', { className: 'mono' }, s.cron), h('td', {}, s.timezone), h('td', {}, s.enabled ? 'enabled' : 'paused'),
    h('td', {}, s.next.map((n) => h('div', { className: 'mono' }, n.nominalAt))),
    h('td', {}, s.ledger.map((f) => h('div', {}, f.nominalAt + ' ' + dash(f.outcome) + (f.reason ? ' (' + f.reason + ')' : '')))),
    h('td', {}, h('button', { type: 'button', onclick: () => act(s.enabled ? 'schedule.pause' : 'schedule.resume', { schedule: s.scheduleId }) }, s.enabled ? 'Pause' : 'Resume')))));
}

async function drawDispatches() {
  const rows = await api('api/dispatches');
  $('dispatches-body').replaceChildren(...rows.map((d) => h('tr', { 'data-dispatch': d.dispatchId },
    h('td', { className: 'mono' }, d.dispatchId), h('td', {}, d.state), h('td', {}, d.tenantId), h('td', {}, d.triggerId), h('td', {}, dash(d.dueAt)),
    h('td', { className: 'mono' }, short(d.dedupeKey, 40)),
    h('td', {}, ['delayed', 'debounced', 'queued'].includes(d.state) ? h('button', { type: 'button', onclick: () => act('dispatch.cancel', { dispatch: d.dispatchId }) }, 'Cancel') : '-'))));
}

async function drawResources() {
  const twin = $('r-twin').value;
  if (!twin) { $('resources-body').replaceChildren(h('p', { className: 'muted' }, 'no twins')); return; }
  const byType = await api('api/resources?twin=' + encodeURIComponent(twin));
  const parts = [];
  for (const [type, rows] of Object.entries(byType)) {
    parts.push(h('h3', {}, type + ' (' + rows.length + ')'));
    const items = [];
    for (const r of rows) {
      const key = twin + '/' + type + '/' + r.id;
      const toggle = () => { open.resource = open.resource === key ? null : key; void drawResources(); };
      items.push(h('tr', { tabindex: 0, 'aria-expanded': open.resource === key ? 'true' : 'false', onclick: toggle, onkeydown: keyActivate(toggle) },
        h('td', { className: 'mono' }, r.id), h('td', {}, 'v' + r.version)));
      if (open.resource === key) {
        const entries = await api('api/history?twin=' + encodeURIComponent(twin) + '&type=' + encodeURIComponent(type) + '&id=' + encodeURIComponent(r.id));
        items.push(h('tr', {}, h('td', { colspan: 2, className: 'detail' }, entries.map((e) =>
          h('div', { className: 'mono' }, '#' + e.seq + ' ' + e.recordedAt + ' ' + e.operation + ' by ' + dash(e.actor))))));
      }
    }
    parts.push(h('table', {}, h('tbody', {}, items)));
  }
  $('resources-body').replaceChildren(...(parts.length ? parts : [h('p', { className: 'muted' }, 'no resources')]));
}

let running = null;
let again = false;
async function refresh() {
  if (running) { again = true; return running; }
  running = (async () => {
    do {
      again = false;
      try {
        await drawOverview();
        await Promise.all([drawDeliveries(), drawTriggers(), drawSchedules(), drawDispatches(), drawResources()]);
      } catch (e) {
        $('message').className = 'error';
        $('message').textContent = String(e);
      }
    } while (again);
  })();
  try { await running; } finally { running = null; }
}

for (const id of ['f-state', 'f-event', 'f-endpoint', 'f-pack']) $(id).addEventListener('change', () => void drawDeliveries());
$('r-twin').addEventListener('change', () => void drawResources());
$('clock-form').addEventListener('submit', (e) => {
  e.preventDefault();
  void act('clock.advance', { ms: Math.round(Number($('advance-seconds').value) * 1000) });
});

const source = new EventSource('events?token=' + encodeURIComponent(token));
source.addEventListener('heads', () => { $('status').textContent = 'live'; void refresh(); });
// The browser retries a stream that dropped, but not one refused (a console started again has a
// new token): then it has given up, and saying "reconnecting" would wait for ever.
source.addEventListener('error', () => {
  $('status').textContent = source.readyState === EventSource.CLOSED
    ? 'disconnected: the console stopped or was started again with a new token; open the URL it printed'
    : 'reconnecting…';
});
void refresh();
`;
