// The console page: one HTML document with its own style and script inline (nothing fetched from
// anywhere else, so it works offline and the content security policy can forbid every other
// origin). Landmarks, labels, focusable rows and real buttons make it usable by keyboard.
import { CONSOLE_SCRIPT } from './page-script.js';

const STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #888; --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --focus: #0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; }
header { display: flex; gap: 1.5rem; align-items: center; padding: .6rem 1rem; border-bottom: 1px solid var(--line); }
header h1 { font-size: 1.05rem; margin: 0; }
nav a { margin-right: .8rem; }
main { padding: 0 1rem 2rem; }
section { margin-top: 1.2rem; }
h2 { font-size: 1rem; margin: .4rem 0; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-weight: 600; color: var(--muted); }
tr[tabindex]:hover { background: #8881; cursor: pointer; }
:focus-visible { outline: 2px solid var(--focus); outline-offset: 1px; }
code, .mono { font-family: ui-monospace, monospace; font-size: 12.5px; }
.state-succeeded, .ok { color: var(--ok); }
.state-failed, .state-refused, .bad { color: var(--bad); }
.state-retrying, .state-unknown, .state-sending, .state-queued { color: var(--warn); }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; margin: .4rem 0; }
.filters label { display: flex; flex-direction: column; font-size: 12px; color: var(--muted); }
.detail { background: #8881; padding: .5rem .8rem; }
.detail dl { display: grid; grid-template-columns: max-content 1fr; gap: .1rem .8rem; margin: .3rem 0; }
.detail dt { color: var(--muted); }
button { font: inherit; padding: .15rem .6rem; }
#status { color: var(--muted); font-size: 12px; }
#message { min-height: 1.2em; }
#message.error { color: var(--bad); }
.muted { color: var(--muted); }
`;

export function consolePage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>twinworld console</title>
<style>${STYLE}</style>
</head>
<body>
<header>
  <h1>twinworld console</h1>
  <span>clock <time id="clock" class="mono">…</time> <span id="clock-kind" class="muted"></span></span>
  <span id="status" role="status" aria-live="polite">connecting…</span>
</header>
<main>
  <nav aria-label="Sections">
    <a href="#twins">Twins</a><a href="#deliveries">Deliveries</a><a href="#endpoints">Endpoints</a>
    <a href="#triggers">Triggers</a><a href="#schedules">Schedules</a><a href="#dispatches">Dispatches</a>
    <a href="#resources">Resources</a>
  </nav>
  <p id="message" role="alert"></p>
  <section id="twins" aria-labelledby="twins-h">
    <h2 id="twins-h">Twins</h2>
    <form id="clock-form" class="filters" aria-label="Advance the virtual clock">
      <label>Advance clock by (seconds)<input id="advance-seconds" type="number" min="1" value="60"></label>
      <button type="submit" id="advance-clock">Advance clock</button>
    </form>
    <table><thead><tr><th>Twin</th><th>Head</th><th>Chain</th><th>State hash</th></tr></thead><tbody id="twins-body"></tbody></table>
  </section>
  <section id="deliveries" aria-labelledby="deliveries-h">
    <h2 id="deliveries-h">Deliveries</h2>
    <form id="delivery-filters" class="filters" aria-label="Filter deliveries">
      <label>State<select id="f-state" name="state"><option value="">any</option>
        ${['queued', 'sending', 'succeeded', 'failed', 'unknown', 'retrying', 'refused', 'cancelled'].map((s) => `<option>${s}</option>`).join('')}</select></label>
      <label>Event<select id="f-event" name="event"><option value="">any</option></select></label>
      <label>Endpoint<select id="f-endpoint" name="endpoint"><option value="">any</option></select></label>
      <label>Pack<select id="f-pack" name="pack"><option value="">any</option></select></label>
    </form>
    <table><thead><tr><th>Delivery</th><th>Pack</th><th>Event</th><th>Endpoint</th><th>State</th><th>Attempts</th><th>Last status</th><th>Created</th></tr></thead>
    <tbody id="deliveries-body"></tbody></table>
  </section>
  <section id="endpoints" aria-labelledby="endpoints-h">
    <h2 id="endpoints-h">Endpoints</h2>
    <table><thead><tr><th>Pack</th><th>Endpoint</th><th>URL</th><th>Events</th><th>State</th><th>Recent success</th><th>Action</th></tr></thead><tbody id="endpoints-body"></tbody></table>
  </section>
  <section id="triggers" aria-labelledby="triggers-h">
    <h2 id="triggers-h">Trigger records</h2>
    <table><thead><tr><th>Seq</th><th>Received</th><th>Tenant</th><th>Source</th><th>Trigger</th><th>Answer</th><th>Code</th><th>Key</th></tr></thead><tbody id="triggers-body"></tbody></table>
  </section>
  <section id="schedules" aria-labelledby="schedules-h">
    <h2 id="schedules-h">Schedules</h2>
    <table><thead><tr><th>Schedule</th><th>Cron</th><th>Zone</th><th>State</th><th>Next occurrences</th><th>Fire ledger (newest first)</th><th>Action</th></tr></thead><tbody id="schedules-body"></tbody></table>
  </section>
  <section id="dispatches" aria-labelledby="dispatches-h">
    <h2 id="dispatches-h">Deferred dispatches</h2>
    <table><thead><tr><th>Dispatch</th><th>State</th><th>Tenant</th><th>Trigger</th><th>Due</th><th>Key</th><th>Action</th></tr></thead><tbody id="dispatches-body"></tbody></table>
  </section>
  <section id="resources" aria-labelledby="resources-h">
    <h2 id="resources-h">Resources</h2>
    <div class="filters"><label>Twin<select id="r-twin"></select></label></div>
    <div id="resources-body"></div>
  </section>
</main>
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>
`;
}
