// What every page of the demo shares: DOM helpers, the error banner, and URL state.

import { group } from "./format.js";

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
  if (seconds < 120) return `${seconds} s`;
  if (seconds < 7200) return `${Math.ceil(seconds / 60)} min`;
  return `${Math.ceil(seconds / 3600)} h`;
}

/**
 * What a 429 means, in a sentence a person reads: the plan's limits and when to try again, and
 * for an anonymous visitor that a free key lifts them.
 */
export function rateLimitSentence(err) {
  const wait = err.retryAfter ? ` Try again in ${formatWait(err.retryAfter)}` : " Try again later";
  const plan = err.plan;
  if (!plan) return `${err.message.charAt(0).toUpperCase()}${err.message.slice(1).replace(/\.$/, "")}.${wait}.`;
  const limits = `${plan.perSecond} a second and ${group(String(plan.quota))} ${plan.window}`;
  if (plan.name === "anonymous") {
    return `Too many requests for now: the anonymous plan allows ${limits}.${wait}, or get a free key.`;
  }
  return `Too many requests for now: your ${plan.name} allows ${limits}.${wait}.`;
}

/** Asks the page's key box (key.js) for a free key. */
export function wantKey() {
  window.dispatchEvent(new CustomEvent("pricing-want-key"));
}

/** Shows an API error (or any error) in the page's `#banner`, with what to do about it. */
export function showBanner(err) {
  const banner = $("banner");
  let text = err.message || String(err);
  const limited = err.code === "RATE_LIMITED" || err.status === 429;
  if (limited) text = rateLimitSentence(err);
  else if (err.nextStep) text = `${text} ${err.nextStep}`;
  banner.replaceChildren(
    el("span", {}, text),
    limited && err.plan && err.plan.name === "anonymous"
      ? el("button", { type: "button", class: "get-key", onclick: wantKey }, "Get a free key")
      : null,
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
