/**
 * The status page: plain HTML and a script that polls `status/data.json` and draws the rates with
 * uPlot (served from node_modules by the router, no build step, no CDN).
 */

/** How often the page asks for new data. */
const POLL_MS = 5_000;

const SCRIPT = `(function () {
  var charts = {};
  function el(id) { return document.getElementById(id); }
  function text(id, s) { el(id).textContent = s; }
  function time(s) { return new Date(s * 1000).toISOString().replace('.000Z', 'Z'); }
  function row(cells) {
    var tr = document.createElement('tr');
    cells.forEach(function (c) { var td = document.createElement('td'); td.textContent = String(c); tr.appendChild(td); });
    return tr;
  }
  function fill(id, rows, empty) {
    var body = el(id); body.textContent = '';
    if (rows.length === 0) rows = [[empty]];
    rows.forEach(function (r) { body.appendChild(row(r)); });
  }
  function chart(id, label, xs, ys) {
    var box = el(id);
    box.setAttribute('data-points', String(xs.length));
    var data = [xs, ys];
    if (charts[id]) { charts[id].setData(data); return; }
    charts[id] = new uPlot({
      width: box.clientWidth || 560, height: 200,
      series: [{}, { label: label, stroke: '#2563eb', fill: 'rgba(37,99,235,0.12)', width: 2 }],
      axes: [{}, { size: 60 }],
      scales: { x: { time: true } },
    }, data, box);
  }
  function render(s) {
    if (s.watermark) {
      text('watermark', String(s.watermark.seqno));
      text('watermark-time', time(s.watermark.gen_utime));
      text('lag', s.watermark.lag_seconds + ' s');
    } else {
      text('watermark', 'nothing indexed yet');
    }
    text('first', s.first ? s.first.seqno + ' (' + time(s.first.gen_utime) + ')' : '-');
    var b = s.rates.buckets, per = s.rates.bucket_seconds;
    var xs = b.map(function (x) { return x.t; });
    chart('chart-blocks', 'blocks/s', xs, b.map(function (x) { return x.blocks / per; }));
    chart('chart-tx', 'transactions/s', xs, b.map(function (x) { return x.transactions / per; }));
    text('rates-source', s.rates.source + '; ' + s.rates.bucket_seconds + ' s buckets over ' + s.rates.window_seconds / 60 + ' minutes before the watermark');
    fill('dead-letters', s.dead_letters.map(function (d) { return [d.kind, d.records, d.blocks]; }), 'none');
    text('history-floor', s.history.floor === null ? 'no floor: every stored block up to the watermark is served' : 'served from masterchain block ' + s.history.floor);
    fill('history', s.history.ranges.map(function (r) { return [r.from + '..' + r.to, r.mc_blocks, r.transactions, r.holes === 0 ? 'none' : r.holes + ': ' + r.first_holes.join(', ') + (r.holes > r.first_holes.length ? ', ...' : ''), time(Math.floor(r.checked_ms / 1000))]; }), 'no backfilled ranges');
    var h = s.health;
    text('health-source', h.source === 'prometheus' ? 'from Prometheus (up of each scrape target)' : 'from each service\\'s /healthcheck');
    fill('services', h.services.map(function (x) { return [x.name, x.state]; }), h.error || 'no services found');
    el('services').querySelectorAll('tr').forEach(function (tr) { var c = tr.children[1]; if (c) tr.className = 'state-' + c.textContent; });
    if (h.alerts) fill('alerts', h.alerts.map(function (a) { return [a.name, a.severity, a.since]; }), 'none firing');
    else fill('alerts', [], 'no Prometheus configured (PROMETHEUS_URL)');
    text('updated', 'updated ' + time(s.now));
    el('status').setAttribute('data-loaded', 'true');
  }
  function poll() {
    fetch('status/data.json').then(function (r) {
      if (!r.ok) return r.json().then(function (e) { throw new Error(e.error || r.status); });
      return r.json();
    }).then(render).catch(function (e) { text('updated', 'error: ' + e.message); });
  }
  poll();
  setInterval(poll, ${POLL_MS});
})();
`;

export const STATUS_SCRIPT = SCRIPT;

export const STATUS_PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <title>tonstream status</title>
    <link rel="stylesheet" href="status/uPlot.min.css">
    <style>
      body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #111; max-width: 1200px; }
      h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
      .figures { display: flex; gap: 32px; flex-wrap: wrap; }
      .figure b { display: block; font-size: 24px; }
      .charts { display: flex; gap: 24px; flex-wrap: wrap; }
      .chart { width: 560px; min-height: 220px; }
      table { border-collapse: collapse; } td { padding: 3px 12px 3px 0; border-bottom: 1px solid #eee; }
      .state-ok td:nth-child(2) { color: #15803d; } .state-down td:nth-child(2), .state-error td:nth-child(2) { color: #b91c1c; font-weight: bold; }
      .state-degraded td:nth-child(2) { color: #b45309; } .note { color: #666; font-size: 12px; }
    </style>
  </head>
  <body>
    <main id="status" data-loaded="false">
      <h1>tonstream status</h1>
      <p class="note" id="updated">loading...</p>
      <div class="figures">
        <div class="figure">watermark (masterchain seqno)<b id="watermark">-</b><span id="watermark-time" class="note"></span></div>
        <div class="figure">lag (now - gen_utime)<b id="lag">-</b></div>
        <div class="figure">first indexed block<b id="first">-</b></div>
      </div>
      <h2>Rates</h2>
      <div class="charts"><div class="chart" id="chart-blocks" data-points="0"></div><div class="chart" id="chart-tx" data-points="0"></div></div>
      <p class="note" id="rates-source"></p>
      <h2>Dead letters</h2>
      <table><thead><tr><td>kind</td><td>records</td><td>blocks</td></tr></thead><tbody id="dead-letters"></tbody></table>
      <p class="note">Records the writer refused, from the receipts of recent masterchain blocks. Undecodable raw blocks: the decoder's tonstream_decoder_errors_total.</p>
      <h2>History</h2>
      <p class="note" id="history-floor"></p>
      <table><thead><tr><td>backfilled range</td><td>masterchain blocks</td><td>transactions</td><td>holes</td><td>checked</td></tr></thead><tbody id="history"></tbody></table>
      <p class="note">Gap checks of npm run backfill's ranges. The floor moves below a range once it has no hole and its traces are stored; a hole is fetched again, and stays listed if it does not fill.</p>
      <h2>Services</h2>
      <p class="note" id="health-source"></p>
      <table><tbody id="services"></tbody></table>
      <p class="note">States only: where each service runs and why it fails are in Prometheus and in its own /healthcheck.</p>
      <h2>Alerts</h2>
      <table><tbody id="alerts"></tbody></table>
    </main>
    <script src="status/uPlot.iife.min.js"></script>
    <script src="status/status.js"></script>
  </body>
</html>
`;
