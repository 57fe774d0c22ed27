// The calculator page: picks models through the API, keeps the workload in the URL, and
// re-estimates every model in WebAssembly on each change.
//
// Prices: each picked model's row comes from POST /api/v1/estimate (api.js), whose `prices` are
// exactly what the server estimates with. Arithmetic: the `estimate` export of web-demo (Rust,
// the estimator crate), given those rows unchanged, so the page shows the server's decimals.

import init, { estimate, estimate_series, presets, version } from "./pkg/web_demo.js";
import { ApiError, apiKey, estimateOnServer, searchModels, setApiKey } from "./api.js";
import "./key.js";
import { dollars, group, percent, price, tokens } from "./format.js";
import { PALETTE, logChart } from "./chart.js";
import { $, el, modelHref, showBanner } from "./ui.js";

const MAX_MODELS = 10;
const DEFAULTS = {
  requests: "10000", preset: "chatbot", input: "", output: "", cache: 0, batch: 0, writes: 0, ttl: "5m", tier: "standard",
  region: "", windowShare: "",
};
// The workload sent when only a model's prices are wanted (any valid workload would do).
const PRICE_PROBE = { requests_per_month: 1, preset: "chatbot" };
// The model fields kept from a server row; its costs are recomputed here, from its rate card
// (`rates`: context thresholds, cache writes, tiers) by the same rule as the server.
const MODEL_FIELDS = [
  "model_id", "name", "provider", "status", "channel", "last_verified_at", "is_stale", "prices", "rates",
];

// How the presets read in the form; the estimator's names stay in the URL and the API.
const PRESET_LABELS = {
  chatbot: "Chatbot",
  summarization: "Summarization",
  extraction: "Data extraction",
  coding_agent: "Coding agent",
  translation: "Translation",
  rag_qa: "RAG question answering",
  classification: "Classification",
};

/**
 * picked: [{id, row, error, suggestions}] in the order picked; `row` is the server's model row
 * (with `prices`) once loaded, `error` a message when the model cannot be priced.
 */
const state = { picked: [], workload: { ...DEFAULTS }, lastResult: null };
let presetList = [];

// ---- URL state -------------------------------------------------------------------------------

function readUrl() {
  const q = new URLSearchParams(window.location.search);
  const ids = (q.get("models") || "").split(",").map((s) => s.trim()).filter(Boolean);
  state.picked = [...new Set(ids)].slice(0, MAX_MODELS).map((id) => ({ id, row: null, error: null, suggestions: [] }));
  const rate = (name, fallback) => (q.has(name) ? Number(q.get(name)) : fallback);
  state.workload = {
    requests: q.get("requests") ?? DEFAULTS.requests,
    preset: q.has("preset") ? q.get("preset") : DEFAULTS.preset,
    input: q.get("input_tokens") ?? "",
    output: q.get("output_tokens") ?? "",
    cache: rate("cache_hit_rate", DEFAULTS.cache),
    batch: rate("batch_share", DEFAULTS.batch),
    writes: rate("cache_write_share", DEFAULTS.writes),
    ttl: q.get("cache_ttl") ?? DEFAULTS.ttl,
    tier: q.get("service_tier") ?? DEFAULTS.tier,
    region: q.get("region") ?? DEFAULTS.region,
    windowShare: q.get("time_window_share") ?? DEFAULTS.windowShare,
  };
}

function writeUrl() {
  const w = state.workload;
  const q = new URLSearchParams();
  const ids = state.picked.map((m) => m.id);
  if (ids.length) q.set("models", ids.join(","));
  q.set("requests", w.requests);
  q.set("preset", w.preset);
  if (w.input !== "") q.set("input_tokens", w.input);
  if (w.output !== "") q.set("output_tokens", w.output);
  q.set("cache_hit_rate", String(w.cache));
  q.set("batch_share", String(w.batch));
  // the conditional knobs only when set, so that links made before them stay as they were
  if (w.writes !== DEFAULTS.writes) q.set("cache_write_share", String(w.writes));
  if (w.ttl !== DEFAULTS.ttl) q.set("cache_ttl", w.ttl);
  if (w.tier !== DEFAULTS.tier) q.set("service_tier", w.tier);
  if (w.region !== DEFAULTS.region) q.set("region", w.region);
  if (w.windowShare !== DEFAULTS.windowShare) q.set("time_window_share", w.windowShare);
  const url = `${window.location.pathname}?${q.toString().replaceAll("%2C", ",").replaceAll("%3A", ":")}`;
  window.history.replaceState(null, "", url);
}

// ---- The workload ----------------------------------------------------------------------------

const FIELD_INPUTS = {
  requests_per_month: "requests",
  preset: "preset",
  input_tokens_per_request: "input-tokens",
  output_tokens_per_request: "output-tokens",
  cache_hit_rate: "cache",
  batch_share: "batch",
  cache_write_share: "writes",
  cache_ttl: "cache-ttl",
  service_tier: "service-tier",
  region: "region",
  time_window_share: "time-window-share",
};

/** A whole number >= 0 from a text field, or an error message. */
function wholeNumber(text, label, required) {
  const trimmed = String(text).trim();
  if (trimmed === "") return required ? { error: `Enter the ${label} (a whole number, at least 1).` } : { value: undefined };
  if (!/^\d+$/.test(trimmed)) return { error: `The ${label} must be a whole number, at least 1; got “${trimmed}”.` };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return { error: `The ${label} is too large for this page; got ${trimmed}.` };
  return { value };
}

/** The estimate body (without model_ids) from the form state, or {field, error}. */
function workloadBody() {
  const w = state.workload;
  const requests = wholeNumber(w.requests, "number of requests per month", true);
  if (requests.error) return { field: "requests_per_month", error: requests.error };
  const input = wholeNumber(w.input, "input tokens per request", false);
  if (input.error) return { field: "input_tokens_per_request", error: input.error };
  const output = wholeNumber(w.output, "output tokens per request", false);
  if (output.error) return { field: "output_tokens_per_request", error: output.error };
  for (const [field, value] of [["cache_hit_rate", w.cache], ["batch_share", w.batch], ["cache_write_share", w.writes]]) {
    if (!Number.isFinite(value)) return { field, error: `\`${field}\` must be a number from 0 to 1.` };
  }
  const body = { requests_per_month: requests.value };
  if (w.preset) body.preset = w.preset;
  if (input.value !== undefined) body.input_tokens_per_request = input.value;
  if (output.value !== undefined) body.output_tokens_per_request = output.value;
  body.cache_hit_rate = w.cache;
  body.batch_share = w.batch;
  body.cache_write_share = w.writes;
  body.cache_ttl = w.ttl;
  body.service_tier = w.tier;
  if (w.region) body.region = w.region;
  const share = String(w.windowShare).trim();
  if (share !== "") {
    // the estimator checks the range; only what is no number at all is caught here
    const value = Number(share);
    if (!/^\d*\.?\d+$/.test(share) || !Number.isFinite(value)) {
      return { field: "time_window_share", error: `\`time_window_share\` must be a number from 0 to 1; got “${share}”.` };
    }
    // a JSON number, as the server takes it; both read it through its shortest text, exactly
    body.time_window_share = value;
  }
  return { body };
}

function showFieldError(field, message) {
  for (const [name, id] of Object.entries(FIELD_INPUTS)) {
    const input = $(id);
    const box = $(`${id}-error`);
    const on = name === field;
    input.toggleAttribute("aria-invalid", on);
    if (box) {
      box.hidden = !on;
      box.textContent = on ? message : "";
    }
  }
}

function syncForm() {
  const w = state.workload;
  $("requests").value = w.requests;
  $("preset").value = w.preset;
  $("input-tokens").value = w.input;
  $("output-tokens").value = w.output;
  const slider = (rate) => String(Math.min(100, Math.max(0, Math.round((Number.isFinite(rate) ? rate : 0) * 100))));
  $("cache").value = slider(w.cache);
  $("batch").value = slider(w.batch);
  $("writes").value = slider(w.writes);
  $("cache-ttl").value = w.ttl;
  $("service-tier").value = w.tier;
  $("time-window-share").value = w.windowShare;
  syncConditions();
  syncLabels();
}

/**
 * Shows the region select when a picked model's card prices a region apart (its options: every
 * such region), and the peak-share field when one has a time window (its placeholder: the
 * default share, the window's hours of the week).
 */
function syncConditions() {
  const rates = state.picked.filter((m) => m.row && m.row.rates).flatMap((m) => m.row.rates);
  const regions = [...new Set(rates.map((r) => r.region).filter(Boolean))].sort();
  if (state.workload.region && !regions.includes(state.workload.region)) regions.push(state.workload.region);
  const select = $("region");
  select.replaceChildren(
    el("option", { value: "" }, "Channel default"),
    ...regions.map((r) => el("option", { value: r }, r)),
  );
  select.value = state.workload.region;
  $("region-field").hidden = regions.length === 0;
  const windows = rates.filter((r) => r.time_window);
  $("time-window-share-field").hidden = windows.length === 0 && state.workload.windowShare === "";
  // Without a share the estimator bills the windows' share of the week's hours: the placeholder
  // shows the share it used, not one worked out again here.
  const windowed = state.workload.windowShare === "" && state.lastResult
    ? state.lastResult.estimates.find((r) => r.conditions && r.conditions.time_window_share)
    : null;
  if (windows.length && windowed) {
    const { time_window_share: share } = windowed.conditions;
    $("time-window-share").placeholder = `${percent(Number(share))} of the week (${windows[0].time_window.name} hours)`;
  }
}

function syncLabels() {
  const w = state.workload;
  $("cache-out").textContent = Number.isFinite(w.cache) ? percent(w.cache) : "?";
  $("batch-out").textContent = Number.isFinite(w.batch) ? percent(w.batch) : "?";
  $("writes-out").textContent = Number.isFinite(w.writes) ? percent(w.writes) : "?";
  const preset = presetList.find((p) => p.name === w.preset);
  $("preset-help").textContent = preset
    ? `${preset.description[0].toUpperCase()}${preset.description.slice(1)}: ${group(String(preset.input_tokens_per_request))} input / ${group(String(preset.output_tokens_per_request))} output tokens per request.`
    : "No preset: both token volumes are needed.";
  $("input-tokens").placeholder = preset ? `${preset.input_tokens_per_request} (preset)` : "required";
  $("output-tokens").placeholder = preset ? `${preset.output_tokens_per_request} (preset)` : "required";
}

// ---- Estimating ------------------------------------------------------------------------------

function recompute() {
  writeUrl();
  syncLabels();
  const rows = state.picked.filter((m) => m.row).map((m) => m.row);
  const { body, field, error } = workloadBody();
  let result = null;
  let problem = error ? { field, message: error } : null;
  if (!problem) {
    try {
      result = estimate(body, rows);
    } catch (err) {
      problem = { field: err.field, message: err.message };
    }
  }
  state.lastResult = result;
  showFieldError(problem && problem.field, problem && problem.message);
  $("workload-error").hidden = !problem;
  $("workload-error").textContent = problem ? `Cannot estimate: ${problem.message}` : "";
  $("costs").classList.toggle("stale", Boolean(problem));
  $("check-status").textContent = "";
  $("check-status").className = "check";
  if (result) renderCosts(result);
  else if (!rows.length) renderCosts(null);
  renderCostChart(result ? body : null, rows);
  renderPicked();
  syncConditions();
}

// ---- The cost chart --------------------------------------------------------------------------

// 100 to 1,000,000,000 requests a month, 20 points a decade.
const CHART_VOLUMES = Array.from({ length: 141 }, (_, i) => Math.round(10 ** (2 + i / 20)));
const TABLE_VOLUMES = [1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9];

/**
 * Every picked model's monthly cost along CHART_VOLUMES and the workload's own volume, computed
 * in one call of the WASM series export; `body` null (no valid workload) hides the chart.
 */
function renderCostChart(body, rows) {
  const panel = $("cost-chart-panel");
  if (!body || !rows.length) {
    panel.hidden = true;
    return;
  }
  const volumes = [...new Set([...CHART_VOLUMES, body.requests_per_month])].sort((a, b) => a - b);
  let series;
  try {
    series = estimate_series(body, rows, new Float64Array(volumes));
  } catch {
    // A volume the estimator cannot price (the cost table shows why for the workload's own).
    panel.hidden = true;
    return;
  }
  panel.hidden = false;
  const names = new Map(rows.map((r) => [r.model_id, r.name || r.model_id]));
  const lines = series.map((s, i) => ({ id: s.model_id, label: names.get(s.model_id), color: PALETTE[i % PALETTE.length], exact: s.totals.split(",") }));
  logChart($("cost-chart"), {
    xs: volumes,
    lines,
    markers: [{ x: body.requests_per_month, label: "your volume" }],
    xLabel: "Requests per month",
    yLabel: "USD per month",
    xValue: (x) => `${group(String(x))} requests`,
  });
  const shown = [...new Set([...TABLE_VOLUMES, body.requests_per_month])].sort((a, b) => a - b);
  $("cost-points").querySelector("thead").replaceChildren(
    el("tr", {}, el("th", { scope: "col", class: "num" }, "Requests per month"), lines.map((l) => el("th", { scope: "col", class: "num" }, l.label))),
  );
  $("cost-points").querySelector("tbody").replaceChildren(
    ...shown.map((v) => {
      const i = volumes.indexOf(v);
      return el("tr", { "data-requests": v, class: v === body.requests_per_month ? "current" : null },
        el("th", { scope: "row", class: "num" }, group(String(v)), v === body.requests_per_month ? " (yours)" : ""),
        lines.map((l) => el("td", { class: "num", "data-model-id": l.id, "data-exact": l.exact[i] }, dollars(l.exact[i]))));
    }),
  );
}

function renderCosts(result) {
  const tbody = $("costs").querySelector("tbody");
  const rows = result ? result.estimates : [];
  $("costs-empty").hidden = rows.length > 0;
  $("costs").hidden = rows.length === 0;
  $("check").disabled = rows.length === 0;
  if (!result) {
    tbody.replaceChildren();
    $("summary").textContent = "";
    $("footnote").textContent = "";
    return;
  }
  const a = result.assumptions;
  const t = a.tokens_per_month;
  const cached = (t.cached_input !== "0" ? ` (${tokens(t.cached_input)} of them from cache)` : "") +
    (t.cache_write !== "0" ? ` (${tokens(t.cache_write)} written into the cache)` : "");
  const batch = t.batch_input !== "0" ? `; ${percent(Number(a.batch_share))} of requests through a batch API` : "";
  $("summary").textContent =
    `${group(String(a.requests_per_month))} requests × ${group(String(a.input_tokens_per_request))} input / ` +
    `${group(String(a.output_tokens_per_request))} output tokens = ${tokens(t.input)} input tokens${cached} and ` +
    `${tokens(t.output)} output tokens a month${batch}.`;

  const max = rows.reduce((m, r) => Math.max(m, Number(r.cost_per_month.total)), 0);
  tbody.replaceChildren(
    ...rows.map((r, i) => {
      const c = r.cost_per_month;
      const notes = r.assumptions.filter((n) => !n.code.startsWith("preset_"));
      const share = max > 0 ? Math.max(0.5, (100 * Number(c.total)) / max) : 0;
      return el(
        "tr",
        { "data-model-id": r.model_id, class: i === 0 && rows.length > 1 ? "cheapest" : null },
        el(
          "th",
          { scope: "row", class: "model" },
          el("a", { class: "model-name", href: modelHref(r.model_id), title: "Price history and card" }, r.name || r.model_id),
          i === 0 && rows.length > 1 ? el("span", { class: "tag good" }, "cheapest") : null,
          r.is_stale ? el("span", { class: "tag warn", title: "The source has not confirmed this price recently" }, "stale price") : null,
          el("span", { class: "model-meta" },
            el("code", {}, r.model_id), ` · ${r.channel || "?"} · ${price(r.prices.input)} in / ${price(r.prices.output)} out`,
            r.prices.cached_input ? ` / ${price(r.prices.cached_input)} cached` : "", " per 1M"),
          notes.length ? el("ul", { class: "notes" }, notes.map((n) => el("li", { "data-code": n.code }, n.text))) : null,
        ),
        money(c.input, "input"),
        money(c.cached_input, "cached_input"),
        money(c.cache_write, "cache_write"),
        money(c.output, "output"),
        money(c.batch_traffic, "batch_traffic"),
        el(
          "td",
          { class: "num total", "data-field": "total", "data-exact": c.total },
          el("span", { class: "total-dollars" }, dollars(c.total)),
          el("span", { class: "bar", "aria-hidden": "true" }, el("span", { style: `width:${share}%` })),
          el("code", { class: "exact", title: "exact, as the estimator computes it (USD)" }, c.total),
        ),
      );
    }),
  );
  const stale = rows.some((r) => r.is_stale) ? " Prices marked stale were not confirmed by their source recently." : "";
  $("footnote").textContent =
    `Money rounded to cents for display; the exact amount (six decimals, half away from zero) is shown under each total ` +
    `and on hover. Prices are each model's reference channel as the server estimates with them.${stale}`;
}

function money(text, field) {
  return el("td", { class: "num", "data-field": field, "data-exact": text, title: `${text} USD` }, dollars(text));
}

// ---- Picked models ---------------------------------------------------------------------------

function renderPicked() {
  const list = $("picked");
  list.replaceChildren(
    ...state.picked.map((m) => {
      const label = m.row ? m.row.name || m.id : m.id;
      const body = [
        el("span", { class: "chip-name", title: m.id }, label),
        !m.row && !m.error ? el("span", { class: "help" }, " loading…") : null,
        el("button", { type: "button", class: "remove", "aria-label": `Remove ${label}`, title: "Remove", onclick: () => removeModel(m.id) }, "×"),
      ];
      if (m.error) {
        body.push(el("p", { class: "chip-error" }, m.error));
        if (m.suggestions.length) {
          body.push(
            el("p", { class: "suggestions" }, "Did you mean ",
              m.suggestions.slice(0, 4).map((s) =>
                el("button", { type: "button", class: "link", onclick: () => replaceModel(m.id, s) }, s)),
              "?"),
          );
        }
      }
      return el("li", { class: m.error ? "chip bad" : "chip", "data-model-id": m.id }, body);
    }),
  );
  $("picked-empty").hidden = state.picked.length > 0;
}

function keepModelFields(row) {
  return Object.fromEntries(MODEL_FIELDS.filter((k) => k in row).map((k) => [k, row[k]]));
}

/** Loads the rows of the picked models that have none, one request for all when possible. */
async function loadPrices() {
  const pending = state.picked.filter((m) => !m.row && !m.error);
  if (!pending.length) return;
  try {
    const data = await estimateOnServer(PRICE_PROBE, pending.map((m) => m.id));
    pending.forEach((m, i) => settle(m, data.estimates.find((r) => r.requested_id === m.id) || data.estimates[i]));
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404 || pending.length === 1) {
      for (const m of pending) failModel(m, err);
      if (!(err instanceof ApiError) || err.status !== 404) showBanner(err);
    } else {
      // One of them is unknown or unpriced: ask one at a time to tell which.
      for (const m of pending) {
        try {
          const data = await estimateOnServer(PRICE_PROBE, [m.id]);
          settle(m, data.estimates[0]);
        } catch (one) {
          failModel(m, one);
        }
      }
    }
  }
  dedupe();
  recompute();
}

function settle(m, row) {
  m.row = keepModelFields(row);
  m.id = row.model_id; // the canonical id, also for aliases and renamed slugs
}

function failModel(m, err) {
  m.error = err instanceof ApiError && err.status === 404 ? err.message : `Prices not loaded: ${err.message}`;
  m.suggestions = (err && err.didYouMean) || [];
}

function dedupe() {
  const seen = new Set();
  state.picked = state.picked.filter((m) => (seen.has(m.id) ? false : seen.add(m.id)));
}

function addModel(id) {
  if (state.picked.some((m) => m.id === id)) {
    $("search-status").textContent = `${id} is already picked.`;
    return;
  }
  if (state.picked.length >= MAX_MODELS) {
    $("search-status").textContent = `At most ${MAX_MODELS} models at once (the estimate endpoint's limit); remove one first.`;
    return;
  }
  state.picked.push({ id, row: null, error: null, suggestions: [] });
  $("search-status").textContent = `Added ${id}.`;
  recompute();
  loadPrices();
}

function removeModel(id) {
  state.picked = state.picked.filter((m) => m.id !== id);
  recompute();
}

function replaceModel(oldId, newId) {
  removeModel(oldId);
  addModel(newId);
}

async function startWithCheapest() {
  try {
    const data = await estimateOnServer(PRICE_PROBE, null);
    state.picked = data.estimates.map((row) => ({ id: row.model_id, row: keepModelFields(row), error: null, suggestions: [] }));
    recompute();
  } catch (err) {
    showBanner(err);
  }
}

// ---- Search ----------------------------------------------------------------------------------

// Searching costs a request of the caller's quota (60 an hour without a key), so it waits for a
// pause in typing and remembers what it found.
let searchTimer = 0;
let searchAbort = null;
let firstResult = null;
const searchCache = new Map();

function onSearchInput() {
  window.clearTimeout(searchTimer);
  const query = $("search").value.trim();
  if (query.length < 2) {
    clearResults();
    $("search-status").textContent = query ? "Type at least two characters." : "";
    return;
  }
  if (searchCache.has(query.toLowerCase())) {
    renderResults(searchCache.get(query.toLowerCase()), query);
    return;
  }
  searchTimer = window.setTimeout(() => runSearch(query), 350);
}

async function runSearch(query) {
  if (searchAbort) searchAbort.abort();
  searchAbort = new AbortController();
  $("search-status").textContent = "Searching…";
  try {
    const items = await searchModels(query, searchAbort.signal);
    searchCache.set(query.toLowerCase(), items);
    renderResults(items, query);
  } catch (err) {
    if (err.name === "AbortError") return;
    clearResults();
    $("search-status").textContent = "";
    showBanner(err);
  }
}

function renderResults(items, query) {
  const list = $("results");
  firstResult = items.length ? items[0].id : null;
  $("search-status").textContent = items.length ? `${items.length} matches for “${query}”.` : `No model matches “${query}”.`;
  list.hidden = items.length === 0;
  list.replaceChildren(
    ...items.map((item) => {
      const p = item.price;
      const priceText = p ? `${price(p.input)} / ${price(p.output)} per 1M` : "no price";
      return el("li", {},
        el("button", { type: "button", class: "result", "data-model-id": item.id, "data-priced": p ? "true" : "false", onclick: () => pick(item.id) },
          el("span", { class: "result-name" }, item.name || item.id),
          el("span", { class: "result-meta" }, el("code", {}, item.id), ` · ${priceText}`, item.status !== "active" ? ` · ${item.status}` : "")));
    }),
  );
}

function pick(id) {
  addModel(id);
  $("search").value = "";
  clearResults();
  $("search").focus();
}

function clearResults() {
  firstResult = null;
  $("results").hidden = true;
  $("results").replaceChildren();
}

// ---- Server check, sharing, banner -----------------------------------------------------------

async function checkAgainstServer() {
  const result = state.lastResult;
  const { body } = workloadBody();
  if (!result || !body) return;
  const status = $("check-status");
  status.className = "check";
  status.textContent = "Asking POST /api/v1/estimate for the same workload…";
  try {
    const data = await estimateOnServer(body, result.estimates.map((r) => r.model_id));
    const server = new Map(data.estimates.map((r) => [r.model_id, r]));
    const differing = result.estimates.filter((r) => {
      const s = server.get(r.model_id);
      return !s || !sameFields(s.cost_per_month, r.cost_per_month) || !sameFields(s.tokens_per_month, r.tokens_per_month);
    });
    if (differing.length) {
      status.className = "check bad";
      status.textContent = `Differs from the server for ${differing.map((r) => r.model_id).join(", ")} (the prices may have been republished; reload).`;
    } else {
      status.className = "check good";
      status.textContent = `✓ Identical to POST /api/v1/estimate for all ${result.estimates.length} models, to the last of six decimals.`;
    }
    status.dataset.result = differing.length ? "different" : "identical";
  } catch (err) {
    status.className = "check bad";
    status.textContent = `The server could not be asked: ${err.message}`;
  }
}

/** Whether two objects of decimal strings hold the same keys with the same strings. */
function sameFields(a, b) {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}

async function copyLink() {
  try {
    await navigator.clipboard.writeText(window.location.href);
    $("check-status").textContent = "Link copied: it opens this calculation.";
  } catch {
    $("check-status").textContent = `Copy this link: ${window.location.href}`;
  }
}

// ---- Start -----------------------------------------------------------------------------------

function bind() {
  const w = state.workload;
  $("requests").addEventListener("input", (e) => { w.requests = e.target.value; recompute(); });
  $("preset").addEventListener("change", (e) => { w.preset = e.target.value; recompute(); });
  $("input-tokens").addEventListener("input", (e) => { w.input = e.target.value; recompute(); });
  $("output-tokens").addEventListener("input", (e) => { w.output = e.target.value; recompute(); });
  $("cache").addEventListener("input", (e) => { w.cache = Number(e.target.value) / 100; recompute(); });
  $("batch").addEventListener("input", (e) => { w.batch = Number(e.target.value) / 100; recompute(); });
  $("writes").addEventListener("input", (e) => { w.writes = Number(e.target.value) / 100; recompute(); });
  $("cache-ttl").addEventListener("change", (e) => { w.ttl = e.target.value; recompute(); });
  $("service-tier").addEventListener("change", (e) => { w.tier = e.target.value; recompute(); });
  $("region").addEventListener("change", (e) => { w.region = e.target.value; recompute(); });
  $("time-window-share").addEventListener("input", (e) => { w.windowShare = e.target.value; recompute(); });
  $("workload").addEventListener("submit", (e) => e.preventDefault());
  $("search").addEventListener("input", onSearchInput);
  $("search").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && firstResult) { e.preventDefault(); pick(firstResult); }
    if (e.key === "Escape") clearResults();
  });
  $("cheapest").addEventListener("click", startWithCheapest);
  $("check").addEventListener("click", checkAgainstServer);
  $("share").addEventListener("click", copyLink);
  $("api-key").value = apiKey();
  $("api-key").addEventListener("change", (e) => {
    setApiKey(e.target.value.trim());
    $("api-key-status").textContent = e.target.value.trim() ? "Key set for this tab." : "No key: the anonymous limits apply.";
  });
}

async function main() {
  readUrl();
  try {
    await init();
  } catch (err) {
    $("engine").textContent = "The WebAssembly estimator failed to load.";
    showBanner({ message: `The WebAssembly estimator failed to load (${err.message}). Rebuild the page with scripts/build-web-demo.sh.` });
    return;
  }
  presetList = presets();
  for (const p of presetList) $("preset").append(el("option", { value: p.name }, PRESET_LABELS[p.name] || p.name));
  $("engine").textContent = `Estimator ${version()} running as WebAssembly in this page.`;
  syncForm();
  bind();
  recompute();
  await loadPrices();
  document.body.dataset.ready = "true";
}

main();
