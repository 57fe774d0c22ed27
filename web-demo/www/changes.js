// The change feed: GET /api/v1/changes with the form's filters, in keyset pages (listing.js),
// each event linking to its model's page, and the RSS / JSON Feed links carrying the same filters.

import { price } from "./format.js";
import "./key.js";
import { keysetListing } from "./listing.js";
import { $, el, modelHref } from "./ui.js";

const LABELS = {
  price_change: "price change",
  price_change_scheduled: "scheduled price change",
  deprecation: "deprecation",
  retirement: "retirement",
  model_launch: "launch",
  limit_change: "limit change",
};

function feedLinks(f) {
  const q = new URLSearchParams(Object.entries(f).filter(([, v]) => v !== ""));
  const suffix = q.size ? `?${q}` : "";
  $("rss").href = `/feeds/changes.xml${suffix}`;
  $("jsonfeed").href = `/feeds/changes.json${suffix}`;
}

function describe(e) {
  if (e.unit === "usd_per_1m_tokens") {
    const pct = e.change_pct ? ` (${e.change_pct.startsWith("-") ? "" : "+"}${e.change_pct}%)` : "";
    return [e.old_value ? `${price(e.old_value)} → ` : "", el("strong", {}, price(e.new_value)), pct];
  }
  if (e.unit === "tokens") return `${e.old_value ?? "?"} → ${e.new_value ?? "?"} tokens`;
  // A provider's deprecation or shutdown statement: what the page said. Its statuses are the
  // model's as a whole, which one channel's shutdown need not change (an Azure retirement of a
  // model still sold elsewhere reads "active"), so they would tell the reader nothing here.
  const d = e.detail;
  if (d && d.date_basis === "provider_page") {
    const said = e.event_type === "deprecation" ? (d.shutdown ? `shutdown ${d.shutdown}` : "no shutdown day stated") : "shutdown";
    if (!d.successor) return said;
    return [`${said} · successor `, el("a", { href: modelHref(d.successor) }, d.successor_name || d.successor)];
  }
  if (e.old_value || e.new_value) return `${e.old_value ?? "–"} → ${e.new_value ?? "–"}`;
  return "";
}

function render(body, f, first) {
  const { items, since, until } = body.data;
  const p = body.pagination;
  $("count").textContent = p.total_count
    ? `${first}–${first + p.count - 1} of ${p.total_count} events, ${since} to ${until}${body.data.includes_scheduled ? " and scheduled" : ""}`
    : `No events ${since} to ${until}.`;
  $("empty").hidden = items.length > 0;
  $("events").querySelector("tbody").replaceChildren(
    ...items.map((e) => {
      const where = [e.channel, e.component && e.component.replace("_", " "), e.tier].filter(Boolean).join(" · ");
      return el("tr", { "data-event-id": e.id, "data-provider": e.provider, "data-significance": e.significance, "data-type": e.event_type },
        el("td", {}, e.effective_date),
        el("th", { scope: "row", class: "model" },
          el("a", { href: modelHref(e.model_id), class: "model-name" }, e.model_name || e.model_id),
          el("span", { class: "model-meta" }, el("code", {}, e.model_id))),
        el("td", {}, el("span", { class: `tag type-${e.event_type}` }, LABELS[e.event_type] || e.event_type)),
        el("td", {}, where || "–"),
        el("td", { class: "num" }, describe(e)),
        el("td", { class: "num significance" },
          el("span", { class: "sig-value" }, String(e.significance)),
          el("span", { class: "bar", "aria-hidden": "true" }, el("span", { style: `width:${Math.max(2, e.significance)}%` }))),
      );
    }),
  );
}

keysetListing({
  form: $("filters"),
  names: ["event_type", "provider", "min_significance", "since", "until"],
  path: "changes",
  render,
  changed: feedLinks,
});
