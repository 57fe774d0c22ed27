// The API key box in every page's header: "Get a free key" (POST /api/v1/keys) for a visitor
// without one; once the browser keeps a key (got here, or typed into the calculator's field),
// which one and its limits, and "Forget it". Importing this module sets the box up.

import { PLANS, apiKey, requestFreeKey, setApiKey } from "./api.js";
import { group } from "./format.js";
import { $, el, showBanner } from "./ui.js";

const limits = (plan) => `${plan.perSecond} requests a second, ${group(String(plan.quota))} ${plan.window}`;

function render(note) {
  const box = $("key-box");
  if (!box) return;
  const key = apiKey();
  const status = key
    ? el("span", { class: "key-status" }, "Your API key ", el("code", {}, `${key.slice(0, 20)}…`), ` is kept in this browser (a free key: ${limits(PLANS.key)}).`)
    : el("span", { class: "key-status" }, `No API key: the anonymous plan, ${limits(PLANS.anonymous)} for your address.`);
  box.replaceChildren(
    status,
    key
      ? el("button", { type: "button", class: "link", id: "forget-key", onclick: () => setApiKey("") }, "Forget it")
      : el("button", { type: "button", id: "get-key", onclick: getKey }, "Get a free key"),
    ...(note ? [el("span", { class: "key-note", role: "status" }, note)] : []),
  );
  box.dataset.key = key ? "yes" : "no";
  const field = $("api-key"); // the calculator's own field
  if (field && field.value !== key) field.value = key;
}

let asking = false;

async function getKey() {
  if (asking || apiKey()) return;
  asking = true;
  const button = $("get-key");
  if (button) button.disabled = true;
  try {
    const data = await requestFreeKey();
    const banner = $("banner");
    // A page the quota stopped loads again, now with the key.
    if (banner && !banner.hidden && banner.dataset.code === "RATE_LIMITED") {
      window.location.reload();
      return;
    }
    render(`Got it: ${group(String(data.quota))} requests a day from now on. Unused, it would stop working on ${data.unused_expires_at.slice(0, 10)}.`);
  } catch (err) {
    showBanner(err);
    if (button) button.disabled = false;
  } finally {
    asking = false;
  }
}

window.addEventListener("pricing-key", () => render());
window.addEventListener("pricing-want-key", getKey);
// Another tab got or forgot a key.
window.addEventListener("storage", (e) => {
  if (e.key === null || e.key === "pricing-api-key") render();
});
render();
