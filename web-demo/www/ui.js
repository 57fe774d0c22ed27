// What every page of the demo shares: DOM helpers, the error banner, and URL state.

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`on...` attributes become listeners) and children. */
export const el = (tag, attrs = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value == null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  node.append(...children.flat().filter((c) => c != null && c !== false));
  return node;
};

export function formatWait(seconds) {
  return seconds < 120 ? `${seconds} s` : `${Math.ceil(seconds / 60)} min`;
}

/** Shows an API error (or any error) in the page's `#banner`, with what to do about it. */
export function showBanner(err) {
  const banner = $("banner");
  let text = err.message || String(err);
  if (err.code === "RATE_LIMITED" || err.status === 429) {
    const wait = err.retryAfter ? `; try again in ${formatWait(err.retryAfter)}` : "";
    text = `The API is rate-limiting this page${wait}. ${err.message} An API key (on the calculator page) raises the limit.`;
  } else if (err.nextStep) {
    text = `${text} ${err.nextStep}`;
  }
  banner.replaceChildren(
    el("span", {}, text),
    el("button", { type: "button", class: "dismiss", "aria-label": "Dismiss", onclick: () => { banner.hidden = true; } }, "×"),
  );
  banner.dataset.code = err.code || "ERROR";
  banner.hidden = false;
}

export function hideBanner() {
  $("banner").hidden = true;
}

/**
 * Replaces the address's query with `params` (empty values left out), keeping `:` and `,`
 * readable, so the address is the view and can be shared.
 */
export function writeQuery(params) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value != null) q.set(key, value);
  }
  const text = q.toString().replaceAll("%2C", ",").replaceAll("%3A", ":");
  window.history.replaceState(null, "", text ? `${window.location.pathname}?${text}` : window.location.pathname);
}

/** A link to a model's page in this demo. */
export function modelHref(id) {
  return `model.html?id=${encodeURIComponent(id).replaceAll("%3A", ":")}`;
}

/** A token count for people: 200000 -> "200K", 1048576 -> "1.05M". */
export function tokenCount(n) {
  if (n == null) return "–";
  if (n >= 1e6) return `${Number((n / 1e6).toFixed(2))}M`;
  if (n >= 1e3) return `${Number((n / 1e3).toFixed(1))}K`;
  return String(n);
}
