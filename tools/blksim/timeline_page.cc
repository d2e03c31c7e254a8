#include "tools/blksim/timeline_page.h"

#include <string>

namespace blksim::cli {

namespace {

// The trace goes in a JSON script element: only "</" could end it early.
std::string script_safe(std::string_view json) {
    std::string out;
    out.reserve(json.size());
    for (std::size_t i = 0; i < json.size(); ++i) {
        out += json[i];
        if (json[i] == '<' && i + 1 < json.size() && json[i + 1] == '/')
            out += "\\";
    }
    return out;
}

constexpr std::string_view MARKUP = R"(<style>
#tl-bar{margin:.5em 0}#tl-bar button{margin-right:.3em}
#tl{position:relative;border:1px solid #ccc;overflow:hidden;user-select:none}
#tl canvas{display:block;cursor:grab}
.track-label{position:absolute;left:0;width:150px;font-size:11px;line-height:14px;white-space:nowrap;
 overflow:hidden;text-overflow:ellipsis;background:#fafafa;border-right:1px solid #ddd;padding-left:3px;box-sizing:border-box}
.track-label.proc{font-weight:bold;background:#eee}
#tl-tip{position:absolute;display:none;background:#fffbe6;border:1px solid #c9b458;padding:4px 6px;font-size:12px;
 pointer-events:none;white-space:pre;z-index:2;box-shadow:1px 1px 3px #aaa}
</style>
<div id="tl-bar"><button id="tl-in">zoom in</button><button id="tl-out">zoom out</button>
<button id="tl-all">whole trace</button><span id="tl-span"></span></div>
<div id="tl"><canvas id="tl-canvas"></canvas><div id="tl-tip"></div></div>
<p style="font-size:.9em;color:#555">Wheel: zoom around the pointer; drag: pan; hover: a slice's details
(a request's stages Q2G, G2I, I2D, D2C) and its flow from Q to C. The same trace opens in ui.perfetto.dev.</p>
<script>
(function(){
'use strict';
const T = JSON.parse(document.getElementById('tl-trace').textContent);
const LABEL = 150, ROW = 14, COUNTER_H = 28;
const procs = {}, threads = {}, tracks = {}, counters = {}, flows = {};
for (const e of T.traceEvents) {
  if (e.ph === 'M') {
    if (e.name === 'process_name') procs[e.pid] = e.args.name;
    if (e.name === 'thread_name') threads[e.pid + ':' + e.tid] = e.args.name;
    continue;
  }
  if (e.ph === 'C') {
    const k = e.pid + ':' + e.name;
    (counters[k] = counters[k] || {pid: e.pid, name: e.name, pts: []}).pts.push([e.ts, e.args.value]);
    continue;
  }
  const k = e.pid + ':' + e.tid;
  const t = tracks[k] = tracks[k] || {pid: e.pid, tid: e.tid, slices: [], stack: [], depth: 1};
  if (e.ph === 'B') {
    const s = {s: e.ts, e: e.ts, name: e.name, args: e.args, d: t.stack.length, track: t, flow: null};
    t.stack.push(s); t.slices.push(s); t.depth = Math.max(t.depth, t.stack.length);
  } else if (e.ph === 'E') {
    t.stack.pop().e = e.ts;
  } else if (e.ph === 's' || e.ph === 't' || e.ph === 'f') {
    const s = t.stack[t.stack.length - 1];
    (flows[e.id] = flows[e.id] || []).push({ts: e.ts, slice: s});
    if (s) s.flow = e.id;
  }
}
// Rows: per process, its tracks (by tid), then its counters.
const rows = [];
let y = 0, t0 = Infinity, t1 = -Infinity;
for (const pid of Object.keys(procs).map(Number).sort((a, b) => a - b)) {
  rows.push({kind: 'proc', name: procs[pid], y: y, h: ROW}); y += ROW;
  const ts = Object.values(tracks).filter(t => t.pid === pid).sort((a, b) => a.tid - b.tid);
  for (const t of ts) {
    t.y = y; t.h = t.depth * ROW;
    rows.push({kind: 'track', name: threads[pid + ':' + t.tid] || ('track ' + t.tid), y: y, h: t.h, track: t});
    y += t.h;
    for (const s of t.slices) { t0 = Math.min(t0, s.s); t1 = Math.max(t1, s.e); }
  }
  for (const c of Object.values(counters).filter(c => c.pid === pid)) {
    c.max = Math.max(1, ...c.pts.map(p => p[1]));
    rows.push({kind: 'counter', name: c.name + ' (max ' + c.max + ')', y: y, h: COUNTER_H, counter: c});
    y += COUNTER_H;
  }
}
if (!isFinite(t0)) { t0 = 0; t1 = 1; }
const box = document.getElementById('tl'), cv = document.getElementById('tl-canvas'), tip = document.getElementById('tl-tip');
for (const r of rows) {
  const d = document.createElement('div');
  d.className = 'track-label' + (r.kind === 'proc' ? ' proc' : '');
  d.dataset.kind = r.kind;
  d.style.top = r.y + 'px'; d.style.height = r.h + 'px';
  d.textContent = r.name; d.title = r.name;
  box.appendChild(d);
}
const W = Math.max(600, box.clientWidth), H = y;
cv.width = W; cv.height = H; cv.style.height = H + 'px';
let v0 = t0, v1 = t1 > t0 ? t1 : t0 + 1, hover = null;
const x = t => LABEL + (t - v0) / (v1 - v0) * (W - LABEL);
const tAt = px => v0 + (px - LABEL) / (W - LABEL) * (v1 - v0);
function colour(name) {
  const fixed = {Q2G: '#e6a23c', G2I: '#b37feb', I2D: '#f56c6c', D2C: '#409eff', spin: '#d03050', seek: '#8d6e63',
                 rotation: '#bcaaa4', read: '#43a047', write: '#1e88e5', step: '#78909c', C: '#000'};
  if (fixed[name]) return fixed[name];
  let h = 0; for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 360;
  return 'hsl(' + h + ',55%,62%)';
}
function fmtUs(us) { return us >= 1000 ? (us / 1000).toFixed(3) + ' ms' : us.toFixed(3) + ' us'; }
function draw() {
  const g = cv.getContext('2d');
  g.clearRect(0, 0, W, H);
  g.font = '10px sans-serif'; g.textBaseline = 'middle';
  for (const r of rows) {
    g.fillStyle = r.kind === 'proc' ? '#eee' : '#fff';
    g.fillRect(LABEL, r.y, W - LABEL, r.h);
    g.strokeStyle = '#eee'; g.beginPath(); g.moveTo(LABEL, r.y + r.h - .5); g.lineTo(W, r.y + r.h - .5); g.stroke();
    if (r.kind === 'track') {
      for (const s of r.track.slices) {
        if (s.e < v0 || s.s > v1) continue;
        const a = Math.max(LABEL, x(s.s)), b = Math.min(W, x(s.e)), w = Math.max(1, b - a);
        g.fillStyle = colour(s.name);
        g.fillRect(a, r.y + s.d * ROW + 1, w, ROW - 2);
        if (w > 30) { g.fillStyle = '#111'; g.fillText(s.name, a + 2, r.y + s.d * ROW + ROW / 2, w - 4); }
      }
    } else if (r.kind === 'counter') {
      const c = r.counter; g.strokeStyle = '#2e7d32'; g.beginPath();
      let prev = null;
      for (const p of c.pts) {
        const px = Math.min(W, Math.max(LABEL, x(p[0]))), py = r.y + r.h - 2 - p[1] / c.max * (r.h - 4);
        if (prev === null) g.moveTo(px, py); else { g.lineTo(px, prev); g.lineTo(px, py); }
        prev = py;
      }
      if (prev !== null) g.lineTo(W, prev);
      g.stroke();
    }
  }
  if (hover && hover.flow !== null && flows[hover.flow]) {  // the request's flow, Q → ... → C
    g.strokeStyle = '#000'; g.lineWidth = 1.5; g.beginPath();
    flows[hover.flow].forEach((p, i) => {
      if (!p.slice) return;
      const px = x(p.ts), py = p.slice.track.y + p.slice.d * ROW + ROW / 2;
      if (i === 0) g.moveTo(px, py); else g.lineTo(px, py);
    });
    g.stroke(); g.lineWidth = 1;
  }
  document.getElementById('tl-span').textContent = ' showing ' + fmtUs(v0) + ' .. ' + fmtUs(v1) + ' (' + fmtUs(v1 - v0) + ')';
}
function describe(s) {
  let t = s.name + '\n' + fmtUs(s.s) + ' .. ' + fmtUs(s.e) + '  (' + fmtUs(s.e - s.s) + ')';
  if (s.args) for (const k of Object.keys(s.args)) t += '\n' + k + ': ' + s.args[k];
  return t;
}
function show(s, px, py) {
  hover = s;
  if (!s) { tip.style.display = 'none'; draw(); return; }
  tip.textContent = describe(s);
  tip.style.display = 'block';
  tip.style.left = Math.min(px + 12, W - 260) + 'px'; tip.style.top = (py + 12) + 'px';
  draw();
}
function sliceAt(px, py) {
  for (const r of rows) {
    if (r.kind !== 'track' || py < r.y || py >= r.y + r.h) continue;
    const d = Math.floor((py - r.y) / ROW), t = tAt(px), slack = (v1 - v0) / (W - LABEL) * 2;
    let best = null;
    for (const s of r.track.slices)
      if (s.d === d && s.s - slack <= t && t <= s.e + slack) best = s;
    return best;
  }
  return null;
}
function zoom(f, at) {
  const c = at === undefined ? (v0 + v1) / 2 : at, span = Math.max(0.001, (v1 - v0) * f);
  v0 = c - (c - v0) * span / (v1 - v0); v1 = v0 + span; draw();
}
let drag = null;
cv.addEventListener('wheel', e => { e.preventDefault(); zoom(e.deltaY > 0 ? 1.25 : 0.8, tAt(e.offsetX)); }, {passive: false});
cv.addEventListener('mousedown', e => { drag = {px: e.offsetX, v0: v0, v1: v1}; });
window.addEventListener('mouseup', () => { drag = null; });
cv.addEventListener('mousemove', e => {
  if (drag) {
    const dt = (e.offsetX - drag.px) / (W - LABEL) * (drag.v1 - drag.v0);
    v0 = drag.v0 - dt; v1 = drag.v1 - dt; draw(); return;
  }
  show(sliceAt(e.offsetX, e.offsetY), e.offsetX, e.offsetY);
});
cv.addEventListener('mouseleave', () => show(null));
document.getElementById('tl-in').onclick = () => zoom(0.5);
document.getElementById('tl-out').onclick = () => zoom(2);
document.getElementById('tl-all').onclick = () => { v0 = t0; v1 = t1 > t0 ? t1 : t0 + 1; draw(); };
draw();
// #hover=first: the first request as if hovered, zoomed to a few of its neighbours.
if (location.hash === '#hover=first') {
  const req = Object.values(tracks).filter(t => threads[t.pid + ':' + t.tid] === 'requests')
                    .flatMap(t => t.slices).filter(s => s.d === 0 && s.args && s.args.request)[0];
  if (req) {
    const span = Math.max(req.e - req.s, 1) * 6;
    v0 = req.s - span / 6; v1 = v0 + span;
    show(req, x(req.s), req.track.y);
  }
}
})();
</script>
)";

}  // namespace

void add_timeline(HtmlPage& page, std::string_view trace_json) {
    page.raw("<script type=\"application/json\" id=\"tl-trace\">");
    page.raw(script_safe(trace_json));
    page.raw("</script>\n");
    page.raw(MARKUP);
}

}  // namespace blksim::cli
