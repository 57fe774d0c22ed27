// A model's page: its card (GET /api/v1/models/{id} with every include section), and the price
// history of one component as step lines, one per channel (standard tier), drawn from the card's
// history summary (`series`: every standard-tier price span). One request per view; another
// component or window is drawn from the same answer.

import { get } from "./api.js";
import "./key.js";
import { PALETTE, dateToSeconds, secondsToDate, stepChart } from "./chart.js";
import { divide, price } from "./format.js";
import { $, el, hideBanner, modelHref, showBanner, tokenCount, writeQuery } from "./ui.js";

const CHANNELS = ["official", "openrouter", "aws_bedrock", "azure", "vertex", "together", "fireworks", "groq", "novita"];
const TIERS = ["standard", "batch", "flex", "priority"];
const COMPONENTS = ["input", "output", "cached_input"];

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
  const lines = [...rows.values()].sort((a, b) => order(a) - order(b)).map((r) =>
    el("tr", { "data-channel": r.channel, "data-tier": r.tier },
      el("th", { scope: "row" }, r.channel),
      el("td", {}, r.tier),
      ...COMPONENTS.map((c) => el("td", { class: "num", "data-component": c, "data-exact": r[c] ?? "" }, price(r[c]))),
      el("td", {}, r.since,
        r.stale ? el("span", { class: "tag warn", title: "Not confirmed by its source in the last 30 days" }, "stale") : null,
        r.promotion ? promotionTag(r.promotion) : null),
    ));
  // A model no channel prices now (retired, or every figure screened out) says so, not an empty table.
  $("prices").querySelector("tbody").replaceChildren(...(lines.length
    ? lines
    : [el("tr", {}, el("td", { colspan: String(3 + COMPONENTS.length), id: "no-prices" }, "No price is in effect on any channel now."))]));
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

/**
 * The step line of one channel over since..end: its price spans (every standard-tier price row,
 * oldest first), each holding from its valid_from to the day before its valid_to. Days between
 * two spans have no published price (a move no provider page dates: docs/publishing.md, "The
 * evidence gate"), so the line has a gap there; it ends where the channel's last span ends.
 */
function channelSteps(spans, since, end) {
  const steps = [];
  let previous = null;
  for (const span of spans) {
    if (span.valid_to && span.valid_to <= since) {
      previous = span;
      continue;
    }
    if (span.valid_from > end) break;
    const adjacent = previous && previous.valid_to === span.valid_from;
    if (adjacent && previous.usd_per_1m === span.usd_per_1m && steps.length) {
      // The same price on, from another row (another source): no step.
      previous = span;
      continue;
    }
    const from = span.valid_from > since ? span.valid_from : since;
    if (previous && previous.valid_to && previous.valid_to < span.valid_from && previous.valid_to > since) {
      steps.push({ date: previous.valid_to, value: null, kind: "unknown: no published price (a move no provider page dates)" });
    }
    let kind;
    if (from === since && since > span.valid_from) kind = "in effect at the window's start";
    else if (!previous) kind = "first price";
    else if (!adjacent) kind = "price after unknown days";
    else kind = span.valid_from > today ? "scheduled change" : "change";
    steps.push({ date: from, value: span.usd_per_1m, kind });
    previous = span;
  }
  if (previous && previous.valid_to && previous.valid_to > since && previous.valid_to <= end) {
    steps.push({ date: previous.valid_to, value: null, kind: "no published price since" });
  }
  return steps;
}

// The page draws from the card alone: its history summary carries every standard-tier price
// span (`series`), so switching the component or the window asks the API for nothing.
function loadHistory() {
  const card = state.card;
  const status = $("history-status");
  $("history-panel").hidden = false;
  const summary = card.history_summary || {};
  const first = summary.first_price_date;
  const series = (summary.series || []).filter((r) => r.component === state.component);
  const component = state.component.replace("_", " ");
  if (!first || !series.length) {
    renderHistory([], [], null, null);
    status.textContent = first
      ? `No standard-tier ${component} price on any channel of this model: choose another component.`
      : "This model has no published prices, so no price history.";
    document.body.dataset.chart = "ready";
    return;
  }
  const since = state.window === "all" ? first : [addDays(today, -Number(state.window)), first].sort()[1];
  // Past the last scheduled change, so its new price shows as a step, not a point.
  const end = [today, ...series.map((r) => addDays(r.valid_from, 30))].sort().at(-1);
  const lines = CHANNELS.map((channel) => ({ channel, steps: channelSteps(series.filter((r) => r.channel === channel), since, end) }))
    .filter((line) => line.steps.length)
    .map((line) => ({ ...line, label: line.channel, color: PALETTE[CHANNELS.indexOf(line.channel)], until: end }));
  const changes = lines.flatMap((l) => l.steps).filter((s) => s.kind === "change" || s.kind === "scheduled change").length;
  const markers = [
    ["launch", card.launch_date],
    ["deprecation", card.deprecation_date],
    ["retirement", card.retirement_date],
    ...lines.flatMap((l) => l.steps.filter((s) => s.kind === "scheduled change").map((s) => [`scheduled: ${l.channel} $${s.value}`, s.date])),
  ].filter(([, date]) => date && date >= since && date <= end).map(([label, date]) => ({ label, date }));
  renderHistory(lines, markers, since, end);
  status.textContent = lines.length
    ? `${component} price, standard tier, ${since} to ${end}: ${changes} change${changes === 1 ? "" : "s"} on ${lines.length} channel${lines.length === 1 ? "" : "s"}.`
    : `No standard-tier ${component} price on any channel in this window.`;
  document.body.dataset.chart = "ready";
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
  loadHistory();
}

main();
