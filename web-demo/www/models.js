// The model explorer: GET /api/v1/models with the filters of the form, in keyset pages
// (listing.js), one row per model linking to its page.

import { price } from "./format.js";
import "./key.js";
import { keysetListing } from "./listing.js";
import { $, el, modelHref, tokenCount } from "./ui.js";

function render(body, f, first) {
  const { items } = body.data;
  const p = body.pagination;
  const channel = f.channel || "reference";
  $("count").textContent = p.total_count
    ? `${first}–${first + p.count - 1} of ${p.total_count} models · prices on the ${channel} channel`
    : "";
  $("models-caption").textContent = `Models and their standard-tier prices in USD per 1M tokens on the ${channel} channel`;
  $("empty").hidden = items.length > 0;
  $("models").querySelector("tbody").replaceChildren(
    ...items.map((m) => {
      const pr = m.price;
      return el("tr", { "data-model-id": m.id },
        el("th", { scope: "row", class: "model" },
          el("a", { href: modelHref(m.id), class: "model-name" }, m.name || m.id),
          el("span", { class: "model-meta" }, el("code", {}, m.id), m.kind ? ` · ${m.kind}` : "")),
        el("td", {}, m.provider),
        el("td", {}, el("span", { class: `status ${m.status}` }, m.status)),
        el("td", { class: "num", "data-exact": m.context_window ?? "" }, tokenCount(m.context_window)),
        ...["input", "output", "cached_input"].map((c) => {
          const value = pr ? pr[c] : null;
          return el("td", { class: "num", "data-component": c, "data-exact": value ?? "" }, price(value));
        }),
        el("td", {}, m.updated_at ? m.updated_at.slice(0, 10) : "–"),
      );
    }),
  );
}

keysetListing({
  form: $("filters"),
  names: ["query", "provider", "kind", "modality", "status", "channel", "min_context", "max_input_price", "sort"],
  defaults: { status: "active" },
  path: "models",
  render,
});
