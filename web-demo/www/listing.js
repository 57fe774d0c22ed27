// A filtered, keyset-paged listing of the API (models, changes): the form's filters and the
// page's cursor live in the address; Next follows `pagination.next_cursor`, Previous goes back
// through the cursors this tab followed. The page supplies the form, the path and how to
// render one page of answers; the elements #count and #pager (its buttons labelled by its
// data-previous and data-next) are shared.

import { get } from "./api.js";
import { $, el, hideBanner, showBanner, writeQuery } from "./ui.js";

const PAGE_SIZE = 20;
// Typing waits for a pause before asking, so a word costs one request of the quota, not one per key.
const TYPING_PAUSE_MS = 350;

/**
 * Runs the listing. `names`: the form fields, named as the API's parameters; `defaults`:
 * values the API assumes anyway (left out of the address and the request); `render(body,
 * filters, first)`: shows a page whose first item is number `first`; `changed(filters)`:
 * called on every new set of filters.
 */
export function keysetListing({ form, names, defaults = {}, path, render, changed = () => {} }) {
  const pager = $("pager");
  pager.append(
    el("button", { type: "button", id: "prev" }, pager.dataset.previous),
    el("span", { id: "page-no", "aria-live": "polite" }),
    el("button", { type: "button", id: "next" }, pager.dataset.next),
  );
  const state = { cursor: "", previous: [], page: 1 };
  let typingTimer = 0;
  let asking = null;

  const filters = () =>
    Object.fromEntries(names.map((name) => {
      const value = form.elements[name].value.trim();
      return [name, value === defaults[name] ? "" : value];
    }));

  async function load() {
    const f = filters();
    writeQuery({ ...f, cursor: state.cursor, page: state.cursor ? state.page : "" });
    changed(f);
    if (asking) asking.abort();
    asking = new AbortController();
    $("count").textContent = "Loading…";
    try {
      const body = await get(path, { ...f, limit: PAGE_SIZE, cursor: state.cursor }, asking.signal);
      hideBanner();
      render(body, f, (state.page - 1) * PAGE_SIZE + 1);
      const p = body.pagination;
      $("next").disabled = !p.has_more;
      $("next").dataset.cursor = p.next_cursor || "";
      $("prev").disabled = state.page <= 1 && !state.cursor;
      $("page-no").textContent = p.total_count ? `Page ${state.page} of ${Math.max(1, Math.ceil(p.total_count / PAGE_SIZE))}` : "";
      document.body.dataset.ready = "true";
    } catch (err) {
      if (err.name === "AbortError") return;
      $("count").textContent = "";
      showBanner(err);
    }
  }

  function restart() {
    state.cursor = "";
    state.previous = [];
    state.page = 1;
    load();
  }

  const q = new URLSearchParams(window.location.search);
  for (const name of names) form.elements[name].value = q.get(name) ?? defaults[name] ?? "";
  state.cursor = q.get("cursor") || "";
  state.page = (state.cursor && Number(q.get("page"))) || 1;

  for (const name of names) {
    const input = form.elements[name];
    if (input.tagName === "SELECT" || input.type === "date") input.addEventListener("change", restart);
    else {
      input.addEventListener("input", () => {
        window.clearTimeout(typingTimer);
        typingTimer = window.setTimeout(restart, TYPING_PAUSE_MS);
      });
    }
  }
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    window.clearTimeout(typingTimer);
    restart();
  });
  $("next").addEventListener("click", () => {
    state.previous.push(state.cursor);
    state.cursor = $("next").dataset.cursor;
    state.page += 1;
    load();
  });
  $("prev").addEventListener("click", () => {
    // Opened from a shared link on a later page, there is no cursor to go back to: page 1.
    state.cursor = state.previous.length ? state.previous.pop() : "";
    state.page = state.cursor ? state.page - 1 : 1;
    load();
  });
  load();
}
