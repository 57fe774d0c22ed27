// A model's page: its card (GET /api/v1/models/{id} with every include section) and the price
// history of one component as step lines, one per channel (standard tier), drawn from the
// published change events (GET .../history, in windows of at most 365 days as the API
// requires).
//
// A change event says the price moved from old_value to new_value on its date. When the first
// price of a line started is not in those events: the line starts on the first day the daily
// series (granularity=daily) has a standard price, so no line is drawn over days the channel
// had no price. A move that no event dates (undatedMove) is drawn from the daily series too.

import { get } from "./api.js";
import { PALETTE, dateToSeconds, secondsToDate, stepChart } from "./chart.js";
import { divide, price } from "./format.js";
import { $, el, hideBanner, modelHref, showBanner, tokenCount, writeQuery } from "./ui.js";

const CHANNELS = ["official", "openrouter", "aws_bedrock", "azure", "vertex", "together", "fireworks", "groq", "novita"];
const TIERS = ["standard", "batch", "flex", "priority"];
const COMPONENTS = ["input", "output", "cached_input"];
const MAX_WINDOW_DAYS = 365;

const today = new Date().toISOString().slice(0, 10);
const addDays = (date, days) => secondsToDate(dateToSeconds(date) + days * 86400);

const params = new URLSearchParams(window.location.search);
const state = {
  id: params.get("id") || "",
  component: COMPONENTS.includes(params.get("component")) ? params.get("component") : "input",
  window: ["all", "365", "730"].includes(params.get("window")) ? params.get("window") : "all",
  card: null,
};

function syncUrl() {
  writeQuery({
    id: state.id,
    component: state.component === "input" ? "" : state.component,
    window: state.window === "all" ? "" : state.window,
  });
}

// ---- The card --------------------------------------------------------------------------------

function renderCard(card) {
  document.title = `${card.name} · Model Pricing Service`;
  $("title").textContent = card.name;
  $("subtitle").replaceChildren(el("code", {}, card.id), ` · ${card.provider.name} · `, el("span", { class: `status ${card.status}` }, card.status));
  const dep = card.deprecation || {};
  const bench = card.benchmarks || {};
  const facts = [
    ["Provider", `${card.provider.name} (${card.provider.slug})`],
    ["Status", card.status],
    ["Kind", card.kind ?? "unknown"],
    ["Modality", `${card.modality}; in: ${card.input_modalities.join(", ")}; out: ${card.output_modalities.join(", ") || "none (vectors or scores)"}`],
    ["Context window", card.context_window ? `${tokenCount(card.context_window)} tokens (${card.context_window})` : "unknown"],
    ["Max output", card.max_output_tokens ? `${tokenCount(card.max_output_tokens)} tokens` : "unknown"],
    ["Launched", card.launch_date || "unknown"],
    ["Deprecated", card.deprecation_date || "–"],
    ["Retired", card.retirement_date || "–"],
    ["Successor", card.successor ? el("a", { href: modelHref(card.successor) }, dep.successor_name || card.successor) : "–"],
    ["Benchmark (aggregate)", bench.aggregate ? `${bench.aggregate} of 100 (Arena overall rating relative to the best)` : "no score"],
    ["Price per point", el("span", { id: "price-per-point" }, pricePerPoint(card))],
  ];
  $("facts").replaceChildren(...facts.flatMap(([term, value]) => [el("dt", {}, term), el("dd", {}, value)]));
  $("calc-link").href = `./?models=${encodeURIComponent(card.id).replaceAll("%3A", ":")}`;
  const aliases = card.aliases || [];
  $("aliases").replaceChildren(...(aliases.length
    ? aliases.map((a) => el("li", {}, el("code", {}, a.alias), ` · ${a.kind === "provider_api_id" ? "API id" : "former slug"}${a.channel ? ` on ${a.channel}` : ""}`))
    : [el("li", {}, "none")]));
  $("card").hidden = false;
  renderPrices(card);
}

/** A promotional price's tag: until when, linking to the provider's page that says so. */
function promotionTag(promotion) {
  const text = promotion.until ? `promotional until ${promotion.until}` : "promotional, no end stated";
  return el("a", { class: "tag warn", href: promotion.url, rel: "noopener", title: "The provider's page calls this price promotional" }, text);
}

function renderPrices(card) {
  const rows = new Map();
  for (const r of card.pricing.in_effect) {
    const key = `${r.channel}|${r.tier}`;
    if (!rows.has(key)) rows.set(key, { channel: r.channel, tier: r.tier, since: r.valid_from, stale: false, promotion: null });
    const row = rows.get(key);
    row[r.component] = r.usd_per_1m;
    if (r.valid_from > row.since) row.since = r.valid_from;
    row.stale ||= r.is_stale;
    row.promotion ||= r.promotion;
  }
  const order = (r) => CHANNELS.indexOf(r.channel) * 10 + TIERS.indexOf(r.tier);
  $("prices").querySelector("tbody").replaceChildren(
    ...[...rows.values()].sort((a, b) => order(a) - order(b)).map((r) =>
      el("tr", { "data-channel": r.channel, "data-tier": r.tier },
        el("th", { scope: "row" }, r.channel),
        el("td", {}, r.tier),
        ...COMPONENTS.map((c) => el("td", { class: "num", "data-component": c, "data-exact": r[c] ?? "" }, price(r[c]))),
        el("td", {}, r.since,
          r.stale ? el("span", { class: "tag warn", title: "Not confirmed by its source in the last 30 days" }, "stale") : null,
          r.promotion ? promotionTag(r.promotion) : null),
      )),
  );
  const scheduled = card.pricing.scheduled;
  $("scheduled-box").hidden = scheduled.length === 0;
  $("scheduled").replaceChildren(...scheduled.map((r) =>
    el("li", {}, `${r.valid_from}: ${r.channel} ${r.tier} ${r.component.replace("_", " ")} becomes `, el("strong", {}, price(r.usd_per_1m)), " per 1M")));
  $("prices-panel").hidden = false;
}

/**
 * Price per aggregate point: the blended reference price over the aggregate score, 6 decimals,
 * as compare's `price_per_point` (docs/api.md, "Benchmarks"); the card does not carry it, and
 * compare takes two distinct models at least.
 */
function pricePerPoint(card) {
  const blended = card.reference_price && card.reference_price.blended;
  const score = card.benchmarks && card.benchmarks.aggregate;
  if (!blended || !score || !/[1-9]/.test(score)) return "–";
  return `$${divide(blended, score, 6)} per 1M tokens per point (blended $${blended} on ${card.reference_price.channel} ÷ ${score})`;
}

// ---- The history -----------------------------------------------------------------------------

/** The windows of at most 365 days covering since..today, oldest first; the newest has no until. */
function windows(since) {
  const out = [];
  let until = null;
  let end = today;
  for (;;) {
    const start = addDays(end, -MAX_WINDOW_DAYS) > since ? addDays(end, -MAX_WINDOW_DAYS) : since;
    out.unshift({ since: start, until });
    if (start <= since) return out;
    end = addDays(start, -1);
    until = end;
  }
}

/** Every item of a paged history query. */
async function allItems(params) {
  const items = [];
  let cursor = "";
  do {
    const body = await get(`models/${encodeURIComponent(state.id)}/history`, { ...params, limit: 100, cursor });
    items.push(...body.data.items);
    cursor = body.pagination.has_more ? body.pagination.next_cursor : "";
  } while (cursor);
  return items;
}

/** The channel's daily points of every tier, since..until, the first `limit` of them. */
async function dailyPoints(channel, since, until, limit) {
  const body = await get(`models/${encodeURIComponent(state.id)}/history`, {
    component: state.component, channel, granularity: "daily", since, until, limit,
  });
  return body.data.items;
}

/** The first standard-tier point since `from` (before `before`) of the channel, or null. */
async function firstPricedPoint(channel, from, before) {
  for (let since = from; since < before; since = addDays(since, MAX_WINDOW_DAYS + 1)) {
    const until = addDays(since, MAX_WINDOW_DAYS) < before ? addDays(since, MAX_WINDOW_DAYS) : addDays(before, -1);
    // One day holds at most one point per tier, so the first day is within the first four.
    const items = await dailyPoints(channel, since, until, TIERS.length);
    const point = items.find((p) => p.tier === "standard");
    if (point) return point;
    if (items.length) return null; // other tiers first: this tier's start is not among them
  }
  return null;
}

// How far back an undated move's unknown days are looked for: one page of daily points.
const GAP_LOOKBACK_DAYS = Math.floor(100 / TIERS.length);

/**
 * A move of the channel's price that no event dates: the sources show it, no provider page dates
 * it, so the published series holds the old price to its last known day, no price after it (the
 * days are unknown), and the new one from its first (docs/publishing.md, "The evidence gate").
 * Appends the unknown days and the current price when `row`, the price in effect now, starts
 * after the last step at another price.
 */
async function undatedMove(channel, steps, row) {
  const last = steps.at(-1);
  if (!row || !last || row.valid_from <= last.date || row.usd_per_1m === last.value) return;
  const lookback = addDays(row.valid_from, -GAP_LOOKBACK_DAYS);
  const from = lookback > last.date ? lookback : last.date;
  const held = (await dailyPoints(channel, from, addDays(row.valid_from, -1), GAP_LOOKBACK_DAYS * TIERS.length))
    .filter((p) => p.tier === "standard");
  const unknownFrom = held.length ? addDays(held.at(-1).date, 1) : from;
  if (unknownFrom < row.valid_from) steps.push({ date: unknownFrom, value: null, kind: "unknown: a move no provider page dates" });
  steps.push({ date: row.valid_from, value: row.usd_per_1m, kind: "price after an undated move" });
}

// Each load of the history has a number; a load that a newer one overtook draws nothing.
let historyRun = 0;

async function loadHistory() {
  const run = ++historyRun;
  const card = state.card;
  const status = $("history-status");
  $("history-panel").hidden = false;
  const first = card.history_summary && card.history_summary.first_price_date;
  if (!first) {
    // No price rows at all: the history would only answer NO_PRICE_DATA.
    renderHistory([], [], null, null);
    status.textContent = "This model has no published prices, so no price history.";
    document.body.dataset.chart = "ready";
    return;
  }
  const since = state.window === "all" ? first : [addDays(today, -Number(state.window)), first].sort()[1];
  const pieces = windows(since);
  status.textContent = `Loading ${pieces.length} window${pieces.length > 1 ? "s" : ""} of history…`;
  document.body.dataset.chart = "loading";
  try {
    const events = [];
    for (const piece of pieces) {
      events.push(...(await allItems({ component: state.component, granularity: "changes", since: piece.since, until: piece.until })));
    }
    const standard = events.filter((e) => e.tier === "standard");
    const current = card.pricing.in_effect.filter((r) => r.component === state.component && r.tier === "standard");
    const channels = CHANNELS.filter((c) => current.some((r) => r.channel === c) || standard.some((e) => e.channel === c));
    // Past the last (scheduled) change, so its new price shows as a step, not a point.
    const end = [today, ...standard.map((e) => addDays(e.effective_date, 30))].sort().at(-1);
    const lines = [];
    for (const channel of channels) {
      const mine = standard.filter((e) => e.channel === channel);
      const row = current.find((r) => r.channel === channel);
      const steps = [];
      // The line starts at the channel's first price in the window: the one the first event
      // moved from, or (no event) the current one's or an earlier one an undated move replaced.
      const before = mine.length ? mine[0].effective_date : row.valid_from;
      const start = before > since ? await firstPricedPoint(channel, since, before) : null;
      const startKind = (date) => (date === since && date !== first ? "in effect at the window's start" : "first price");
      if (start) steps.push({ date: start.date, value: mine.length ? mine[0].old_value : start.usd_per_1m, kind: startKind(start.date) });
      for (const e of mine) steps.push({ date: e.effective_date, value: e.new_value, kind: e.event_type === "price_change_scheduled" ? "scheduled change" : "change" });
      if (!steps.length) {
        const from = row.valid_from > since ? row.valid_from : since;
        steps.push({ date: from, value: row.usd_per_1m, kind: startKind(from) });
      }
      await undatedMove(channel, steps, row);
      lines.push({ channel, label: channel, color: PALETTE[CHANNELS.indexOf(channel)], steps, until: end });
    }
    if (run !== historyRun) return;
    const markers = [
      ["launch", card.launch_date],
      ["deprecation", card.deprecation_date],
      ["retirement", card.retirement_date],
      ...standard.filter((e) => e.event_type === "price_change_scheduled").map((e) => [`scheduled: ${e.channel} $${e.new_value}`, e.effective_date]),
    ].filter(([, date]) => date && date >= since && date <= end).map(([label, date]) => ({ label, date }));
    renderHistory(lines, markers, since, end);
    status.textContent = lines.length
      ? `${state.component.replace("_", " ")} price, standard tier, ${since} to ${end}: ${standard.length} change${standard.length === 1 ? "" : "s"} on ${lines.length} channel${lines.length === 1 ? "" : "s"}.`
      : `No standard-tier ${state.component.replace("_", " ")} price on any channel.`;
    document.body.dataset.chart = "ready";
  } catch (err) {
    if (run !== historyRun) return;
    renderHistory([], [], null, null);
    if (err.code === "NO_PRICE_DATA") {
      status.textContent = `No ${state.component.replace("_", " ")} price on any channel of this model: choose another component.`;
      document.body.dataset.chart = "ready";
      return;
    }
    status.textContent = "";
    showBanner(err);
    document.body.dataset.chart = "failed";
  }
}

function renderHistory(lines, markers, since, end) {
  const box = $("chart");
  if (lines.length) {
    stepChart(box, { lines, markers, yLabel: "USD per 1M tokens" });
  } else if (box.chart) {
    box.chart.destroy();
    box.chart = null;
  }
  $("chart-caption").textContent = lines.length
    ? `Step lines: each price holds until the next change. Hover for the exact price and date. ${since} to ${end}.`
    : "No price lines to draw.";
  $("steps").querySelector("tbody").replaceChildren(
    ...lines.flatMap((line) => line.steps.map((s) =>
      el("tr", { "data-channel": line.channel, "data-from": s.date, "data-value": s.value },
        el("th", { scope: "row" }, line.channel), el("td", {}, s.date), el("td", { class: "num" }, s.value === null ? "unknown" : price(s.value)), el("td", {}, s.kind)))),
  );
  $("markers").replaceChildren(...(markers.length
    ? markers.map((m) => el("li", { "data-date": m.date }, `${m.date}: ${m.label}`))
    : [el("li", {}, "none in this window")]));
}

// ---- Start -----------------------------------------------------------------------------------

async function main() {
  $("component").value = state.component;
  $("window").value = state.window;
  if (!state.id) {
    showBanner({ message: "No model given: open this page from the model list, or add ?id=provider:model to the address." });
    return;
  }
  try {
    const body = await get(`models/${encodeURIComponent(state.id)}`, { include: "pricing,deprecation,benchmarks,aliases,history_summary" });
    state.card = body.data;
  } catch (err) {
    showBanner(err);
    if (err.didYouMean && err.didYouMean.length) {
      $("banner").append(el("p", {}, "Did you mean ", err.didYouMean.slice(0, 5).map((id) => el("a", { href: modelHref(id), class: "suggestion" }, id)), "?"));
    }
    document.body.dataset.ready = "true";
    return;
  }
  hideBanner();
  state.id = state.card.id; // the canonical id, also when an alias was asked for
  syncUrl();
  renderCard(state.card);
  document.body.dataset.ready = "true";
  $("component").addEventListener("change", (e) => { state.component = e.target.value; syncUrl(); loadHistory(); });
  $("window").addEventListener("change", (e) => { state.window = e.target.value; syncUrl(); loadHistory(); });
  await loadHistory();
}

main();
