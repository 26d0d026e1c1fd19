// The operator page of `am serve` (docs/server.md, "The operator page").
// Every text reaches the page through textContent (never parsed as markup), so what
// a memory holds is shown, never run. The data routes sit behind the bearer
// token when the server has one: the page sends it from sessionStorage (given
// once in the form, or as `#token=...` in the address, which never reaches
// the server and is cleared from the address bar at once).
"use strict";

const TIMELINE_MAX = 300;
const HISTORY = 200; // envelopes shown from before the page opened
const $ = (id) => document.getElementById(id);

const state = { home: null, owner: null, scopes: ["self", "diary", "life"], stream: null, refreshTimer: null };

// ---- the token ----
(function takeTokenFromHash() {
  const m = /(?:^#|&)token=([^&]*)/.exec(location.hash);
  if (m) {
    sessionStorage.setItem("am-token", decodeURIComponent(m[1]));
    history.replaceState(null, "", location.pathname + location.search);
  }
})();

function headers(extra) {
  const h = Object.assign({}, extra || {});
  const t = sessionStorage.getItem("am-token");
  if (t) h["Authorization"] = "Bearer " + t;
  return h;
}

function needToken() {
  $("tokenform").hidden = false;
  setStatus("this server needs its bearer token", "bad");
}

function setStatus(text, cls) {
  const s = $("status");
  s.textContent = text;
  s.className = "status " + (cls || "");
}

// ---- elements (text only) ----
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined && text !== null) e.textContent = String(text);
  if (cls) e.className = cls;
  return e;
}

function empty(text) {
  return el("div", text, "empty");
}

// A JSON value as nested definition lists, bounded in depth and length.
function render(v, depth) {
  depth = depth || 0;
  if (v === null || v === undefined) return el("span", "-", "empty");
  if (typeof v !== "object") return el("span", typeof v === "number" ? fmt(v) : v);
  if (depth > 3) return el("span", JSON.stringify(v).slice(0, 200));
  if (Array.isArray(v)) {
    if (v.length === 0) return el("span", "(none)", "empty");
    if (v.every((x) => x === null || typeof x !== "object")) {
      return el("span", v.slice(0, 20).map((x) => (typeof x === "number" ? fmt(x) : String(x))).join(", ") + (v.length > 20 ? ", ..." : ""));
    }
    const ol = el("ol");
    v.slice(0, 12).forEach((x) => { const li = el("li"); li.appendChild(render(x, depth + 1)); ol.appendChild(li); });
    if (v.length > 12) ol.appendChild(el("li", `... ${v.length - 12} more`, "empty"));
    return ol;
  }
  const keys = Object.keys(v);
  if (keys.length === 0) return el("span", "(none)", "empty");
  const dl = el("dl");
  keys.forEach((k) => { dl.appendChild(el("dt", k)); const dd = el("dd"); dd.appendChild(render(v[k], depth + 1)); dl.appendChild(dd); });
  return dl;
}

function fmt(n) {
  return Number.isInteger(n) ? String(n) : n.toFixed(3);
}

function fill(id, node) {
  const p = $(id);
  p.replaceChildren(node);
}

// ---- calls ----
async function op(name, args) {
  const r = await fetch(`/v1/${encodeURIComponent(state.home)}/ops/${encodeURIComponent(name)}`, {
    method: "POST",
    headers: headers({ "Content-Type": "application/json" }),
    body: JSON.stringify(args || {}),
  });
  if (r.status === 401) { needToken(); throw new Error("unauthorized"); }
  const v = await r.json();
  if (v.error) throw new Error(`${v.error.kind}: ${v.error.message}`);
  return v.ok;
}

function ladder() {
  return state.scopes.map((s) => [s, state.owner]);
}

async function panel(id, load, show) {
  try {
    fill(id, show(await load()));
  } catch (e) {
    if (e.message !== "unauthorized") fill(id, empty(String(e.message || e)));
  }
}

function table(rows, cols) {
  if (!rows.length) return empty("(none)");
  const t = el("table");
  const head = el("tr");
  cols.forEach(([label, , cls]) => head.appendChild(el("th", label, cls)));
  t.appendChild(head);
  rows.forEach((r) => {
    const tr = el("tr");
    cols.forEach(([, get, cls]) => {
      const x = get(r);
      const td = el("td", typeof x === "number" ? fmt(x) : (x === null || x === undefined ? "-" : typeof x === "object" ? JSON.stringify(x) : x), cls);
      if (typeof x === "number" && cls === "num") td.classList.add(x > 0 ? "pos" : x < 0 ? "neg" : "zero");
      tr.appendChild(td);
    });
    t.appendChild(tr);
  });
  return t;
}

async function refreshPanels() {
  if (!state.home) return;
  if (!state.owner) {
    ["card", "feelings", "drives", "topics"].forEach((id) => fill(id, empty("(no owner yet: name one, or wait for the stream)")));
  } else {
    panel("card", () => op("entity_card", { scope_pairs: ladder(), owner_id: state.owner }), (c) => render(c));
    panel("feelings", async () => {
      const rows = [];
      for (const s of state.scopes) {
        const g = await op("gradation", { scope: s, owner_id: state.owner });
        Object.keys(g).forEach((target) => rows.push(Object.assign({ scope: s, target }, g[target])));
      }
      return rows;
    }, (rows) => table(rows, gradationColumns(rows)));
    panel("drives", () => op("alive_drives", { scopes: ladder(), k: 8 }), (d) => render(d));
    panel("topics", () => op("communities", { scopes: ladder(), owner_id: state.owner }), (t) => render(t));
  }
  panel("tasks", async () => {
    const out = [];
    for (const status of ["leased", "pending", "deferred"]) out.push(...(await op("tasks.tasks", { status, limit: 20 })));
    return out;
  }, (rows) => table(rows, [["task", (r) => r.task_id], ["kind", (r) => r.kind], ["status", (r) => r.status], ["target", (r) => r.target_id]]));
  panel("jobs", async () => {
    const r = await fetch(`/v1/${encodeURIComponent(state.home)}/jobs`, { headers: headers() });
    if (r.status === 401) { needToken(); throw new Error("unauthorized"); }
    return (await r.json()).jobs || [];
  }, (rows) => table(rows, [["job", (r) => r.job_id], ["op", (r) => r.op], ["state", (r) => r.state], ["last phase", (r) => r.last_phase]]));
}

function gradationColumns(rows) {
  const cols = [["scope", (r) => r.scope], ["target", (r) => r.target]];
  const seen = new Set();
  rows.forEach((r) => Object.keys(r).forEach((k) => { if (k !== "scope" && k !== "target") seen.add(k); }));
  seen.forEach((k) => cols.push([k, (r) => r[k], typeof (rows.find((x) => x[k] !== undefined) || {})[k] === "number" ? "num" : ""]));
  return cols;
}

function scheduleRefresh() {
  if (state.refreshTimer) return;
  state.refreshTimer = setTimeout(() => { state.refreshTimer = null; refreshPanels(); }, 700);
}

// ---- the timeline: the replay stream over fetch (EventSource cannot send the token) ----
function describe(env) {
  const p = env.payload || {};
  const d = env.display || {};
  const pick = (x) => (x && (x.title || x.kind)) || null;
  const what = pick(d) || (d.pair && d.pair.map(pick).filter(Boolean).join(" + ")) ||
    p.event_type || p.kind || p.record_type || p.type || env.family;
  const verb = p.event_type || p.kind || p.type || "";
  return { what: String(what), verb: verb && verb !== what ? String(verb) : "" };
}

function addEnvelope(env, fresh) {
  const li = el("li", undefined, fresh ? "fresh" : "");
  li.dataset.seq = env.seq;
  li.appendChild(el("span", "#" + env.seq, "seq"));
  li.appendChild(el("span", env.family, "fam fam-" + env.family));
  const body = el("div");
  const d = describe(env);
  body.appendChild(el("div", d.what, "what"));
  const meta = [d.verb, env.scope && `${env.scope}/${env.owner_id}`, env.observed_at].filter(Boolean).join("  ·  ");
  body.appendChild(el("div", meta, "meta"));
  li.appendChild(body);
  const tl = $("timeline");
  tl.insertBefore(li, tl.firstChild);
  while (tl.childElementCount > TIMELINE_MAX) tl.removeChild(tl.lastChild);
  if (fresh) setTimeout(() => li.classList.remove("fresh"), 4000);
  if (!state.owner && env.owner_id) {
    state.owner = env.owner_id;
    $("owner").value = env.owner_id;
    scheduleRefresh();
  }
}

async function follow(home, controller) {
  let last = null;
  while (!controller.signal.aborted) {
    try {
      let url = `/v1/${encodeURIComponent(home)}/replay?enrich=true`;
      if (last === null) {
        const hw = await op("current_seq", {});
        url += `&since_seq=${Math.max(0, hw - HISTORY)}`;
        // What the journal held when the page opened is history; later
        // envelopes are live.
        state.caughtUpAt = hw;
      }
      const h = headers({ Accept: "text/event-stream" });
      if (last !== null) h["Last-Event-ID"] = last;
      const r = await fetch(url, { headers: h, signal: controller.signal });
      if (r.status === 401) { needToken(); return; }
      if (!r.ok) throw new Error(`replay: HTTP ${r.status}`);
      setStatus(`live: ${home}`, "live");
      const reader = r.body.getReader();
      const dec = new TextDecoder();
      let buf = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buf += dec.decode(value, { stream: true });
        let m;
        while ((m = /\r?\n\r?\n/.exec(buf))) {
          const block = buf.slice(0, m.index);
          buf = buf.slice(m.index + m[0].length);
          let id = null, data = "", event = "message";
          block.split(/\r?\n/).forEach((line) => {
            if (line.startsWith("id:")) id = line.slice(3).trim();
            else if (line.startsWith("data:")) data += (data ? "\n" : "") + line.slice(5).replace(/^ /, "");
            else if (line.startsWith("event:")) event = line.slice(6).trim();
          });
          if (event !== "message" || !data) continue;
          const env = JSON.parse(data);
          last = id || String(env.seq);
          const fresh = env.seq > state.caughtUpAt;
          addEnvelope(env, fresh);
          if (fresh) scheduleRefresh();
        }
      }
    } catch (e) {
      if (controller.signal.aborted) return;
      setStatus(`reconnecting (${e.message || e})`, "bad");
    }
    await new Promise((res) => setTimeout(res, 1000));
  }
}

function start() {
  if (state.stream) state.stream.abort();
  $("timeline").replaceChildren();
  state.home = $("home").value || null;
  state.owner = $("owner").value.trim() || null;
  state.scopes = $("scopes").value.split(",").map((s) => s.trim()).filter(Boolean);
  const q = new URLSearchParams();
  if (state.home) q.set("home", state.home);
  if (state.owner) q.set("owner", state.owner);
  history.replaceState(null, "", location.pathname + "?" + q.toString());
  if (!state.home) { setStatus("no home to show", "bad"); return; }
  state.stream = new AbortController();
  follow(state.home, state.stream);
  refreshPanels();
}

let homesLoaded = false;
async function loadHomesIfNeeded() {
  if (homesLoaded) return;
  const r = await fetch("/v1/homes", { headers: headers() });
  if (r.status === 401) { needToken(); return; }
  const homes = (await r.json()).homes || [];
  const sel = $("home");
  const want = new URLSearchParams(location.search).get("home") || state.home;
  sel.replaceChildren(...homes.map((h) => { const o = el("option", h); o.value = h; return o; }));
  if (want && !homes.includes(want)) { const o = el("option", want); o.value = want; sel.appendChild(o); }
  if (want) sel.value = want;
  homesLoaded = true;
}

window.addEventListener("DOMContentLoaded", async () => {
  const q = new URLSearchParams(location.search);
  if (q.get("owner")) $("owner").value = q.get("owner");
  if (q.get("scopes")) $("scopes").value = q.get("scopes");
  $("apply").addEventListener("click", start);
  $("tokenform").addEventListener("submit", (e) => {
    e.preventDefault();
    sessionStorage.setItem("am-token", $("token").value);
    $("token").value = "";
    $("tokenform").hidden = true;
    homesLoaded = false;
    loadHomesIfNeeded().then(start);
  });
  try { await loadHomesIfNeeded(); } catch (e) { setStatus(String(e.message || e), "bad"); }
  if (homesLoaded) start();
  setInterval(() => { if (state.home) refreshPanels(); }, 15000);
});
