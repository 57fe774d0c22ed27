// The pricing REST API as the pages use it: GETs (remembered for the page's life, and by the
// browser's HTTP cache for as long as the API's Cache-Control allows), model search, the prices
// POST /api/v1/estimate computes with, and free keys on request.
//
// Every request goes through one queue per page that sends no faster than the visitor's plan
// allows (docs/keys.md, "Plans"): the pacing is kept in localStorage, so a page opened right
// after another, or in another tab, goes on from where the last one left the visitor's budget.
// A 429 stops the queue for its Retry-After: a short wait (the burst limit) is waited out and
// the request sent again, never earlier; a long one (the quota) fails the request, and every
// request after it, with the wait, until it is over or the visitor has a key. Every failure
// becomes an ApiError whose message can be shown as is.

const API = new URL("/api/v1/", window.location.href);

/** An error answer of the API, or no answer at all (`code` "UNREACHABLE"). */
export class ApiError extends Error {
  constructor(code, message, { status = 0, nextStep = null, didYouMean = [], retryAfter = null, plan = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.nextStep = nextStep;
    this.didYouMean = didYouMean;
    this.retryAfter = retryAfter;
    // On a 429: the limits of the plan that refused it (PLANS, the quota as the API said it).
    this.plan = plan;
  }
}

// localStorage: the key and the pacing hold for every page and tab of this browser.
const store = (() => {
  try {
    return window.localStorage;
  } catch {
    return null; // storage disabled: each page keeps its own
  }
})();
const memory = new Map();
const load = (name) => {
  try {
    return store ? store.getItem(name) : (memory.get(name) ?? null);
  } catch {
    return memory.get(name) ?? null;
  }
};
const save = (name, value) => {
  try {
    if (!store) throw new Error("no storage");
    if (value === null) store.removeItem(name);
    else store.setItem(name, value);
  } catch {
    if (value === null) memory.delete(name);
    else memory.set(name, value);
  }
};

// ---- The key ---------------------------------------------------------------------------------

/** Where the API key is kept: this browser, never the shareable URL. */
const KEY_STORAGE = "pricing-api-key";

export function apiKey() {
  return load(KEY_STORAGE) || "";
}

/** Keeps `key` (or forgets the key, for "") and tells the page (event `pricing-key`). */
export function setApiKey(key) {
  save(KEY_STORAGE, key || null);
  window.dispatchEvent(new CustomEvent("pricing-key"));
}

// ---- The plans -------------------------------------------------------------------------------

/**
 * The limits the pages pace by: the built-in plans of docs/keys.md. `quota` is what a plan allows
 * per `window`; a 429's X-RateLimit-Limit, when it has one, says the quota the server applied.
 */
export const PLANS = {
  anonymous: { name: "anonymous", perSecond: 2, quota: 60, window: "an hour" },
  key: { name: "free key", perSecond: 5, quota: 1000, window: "a day" },
};

/** The plan requests go out on now: with the stored key, or anonymous. */
export function currentPlan() {
  return apiKey() ? PLANS.key : PLANS.anonymous;
}

// ---- The queue -------------------------------------------------------------------------------

// A short Retry-After (the burst limit) is waited out, up to this long for one request; a longer
// one (the hourly or daily quota) is reported.
const MAX_RETRY_WAIT_SECONDS = 5;
// Requests are spaced a little wider than the plan's rate, so that the network's jitter never
// brings two closer than the server's bucket allows.
const MARGIN_MS = 80;

/**
 * The pacing of the visitor's budget on the current plan, as the server's token bucket (GCRA)
 * sees it: `tat`, the time (ms) up to which the bucket is drawn, and `blocked`, the time before
 * which a 429 said not to ask again. One per plan and key, shared by every page and tab.
 */
function paceName() {
  const key = apiKey();
  return key ? `pricing-pace:${key.slice(0, 20)}` : "pricing-pace:anonymous";
}

function readPace() {
  try {
    const saved = JSON.parse(load(paceName()));
    if (saved && Number.isFinite(saved.tat) && Number.isFinite(saved.blocked)) return saved;
  } catch {
    // unreadable: start afresh
  }
  return { tat: 0, blocked: 0, plan: null };
}

function writePace(pace) {
  save(paceName(), JSON.stringify(pace));
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(new DOMException("aborted", "AbortError"));
      return;
    }
    const timer = window.setTimeout(resolve, ms);
    if (signal) {
      signal.addEventListener("abort", () => {
        window.clearTimeout(timer);
        reject(new DOMException("aborted", "AbortError"));
      }, { once: true });
    }
  });
}

/** The error of a request not sent because a 429 said to wait longer than a page waits. */
function stillRefused(pace, plan) {
  const seconds = Math.ceil((pace.blocked - Date.now()) / 1000);
  return new ApiError("RATE_LIMITED", pace.message || "Too many requests.", {
    status: 429,
    retryAfter: seconds,
    plan: pace.plan || plan,
  });
}

/**
 * Waits until one more request fits the plan's burst rate and no 429 says to wait, and takes
 * its place. Fails at once when a 429 said to wait longer than MAX_RETRY_WAIT_SECONDS.
 */
async function takeTurn(signal) {
  for (;;) {
    const plan = currentPlan();
    const step = 1000 / plan.perSecond + MARGIN_MS;
    const pace = readPace();
    const now = Date.now();
    if (pace.blocked - now > MAX_RETRY_WAIT_SECONDS * 1000) throw stillRefused(pace, plan);
    // The bucket holds perSecond tokens: a request fits once tat is at most perSecond - 1 steps ahead.
    const at = Math.max(now, pace.blocked, pace.tat - (plan.perSecond - 1) * step);
    if (at <= now) {
      writePace({ ...pace, tat: Math.max(pace.tat, now) + step });
      return;
    }
    // Another page or tab may take the place meanwhile: look again when the wait is over.
    await sleep(at - now, signal);
  }
}

let queue = Promise.resolve();

/** Runs `send` when its turn in the page's queue comes; requests leave one by one, in order. */
function enqueue(send, signal) {
  const turn = queue.then(() => takeTurn(signal));
  queue = turn.catch(() => {});
  return turn.then(send);
}

async function request(path, init = {}) {
  let waited = 0;
  for (;;) {
    const plan = currentPlan();
    try {
      return await enqueue(() => requestOnce(path, init, plan), init.signal);
    } catch (err) {
      if (!(err instanceof ApiError) || err.status !== 429 || err.retryAfter === null) throw err;
      const wait = Math.max(1, err.retryAfter);
      // Not before the server said: the next turn of the queue waits for `blocked` anyway.
      if (waited + wait > MAX_RETRY_WAIT_SECONDS) throw err;
      waited += wait;
    }
  }
}

async function requestOnce(path, init, plan) {
  const headers = { accept: "application/json", ...init.headers };
  const key = apiKey();
  if (key) headers["x-api-key"] = key;
  let res;
  try {
    res = await fetch(new URL(path, API), { ...init, headers });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError("UNREACHABLE", "The pricing API cannot be reached. Is the server running?");
  }
  let body = null;
  try {
    body = await res.json();
  } catch {
    // Not JSON: handled below.
  }
  if (!res.ok) {
    const error = body && body.error;
    const retryAfter = res.headers.get("retry-after");
    const message =
      (error && error.message) ||
      (res.status === 429 ? "Too many requests." : `The API answered ${res.status} ${res.statusText}.`);
    let refusedPlan = null;
    if (res.status === 429) {
      const limit = Number(res.headers.get("x-ratelimit-limit"));
      refusedPlan = limit > 0 ? { ...plan, quota: limit } : plan;
      const wait = Math.max(1, Number(retryAfter) || 1);
      writePace({ ...readPace(), blocked: Date.now() + wait * 1000, message, plan: refusedPlan });
    }
    throw new ApiError((error && error.code) || `HTTP_${res.status}`, message, {
      status: res.status,
      nextStep: error && error.next_step,
      didYouMean: (error && error.did_you_mean) || [],
      retryAfter: retryAfter ? Number(retryAfter) : null,
      plan: refusedPlan,
    });
  }
  if (body === null) {
    throw new ApiError("BAD_RESPONSE", `The API answered ${res.status} without a JSON body.`, { status: res.status });
  }
  return body;
}

// GET answers this page already has, or is waiting for. The data changes only when a publish
// lands, and every request counts against the visitor's quota, so an answer is asked for once
// per page load; across pages the browser's HTTP cache keeps it as long as Cache-Control says.
const answers = new Map();

/**
 * GET `path` (relative to /api/v1/) with the query `params` (empty values left out): the whole
 * envelope (`data`, `pagination`, ...). Remembered for the page's life.
 */
export function get(path, params = {}, signal) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value != null) q.set(key, value);
  }
  const url = q.size ? `${path}?${q}` : path;
  const known = answers.get(url);
  // A request its asker gave up (an aborted signal) fails with AbortError, which the next asker
  // of the same address would take as its own cancellation and show nothing: it is asked again.
  if (known && (known.answered || !(known.signal && known.signal.aborted))) return known.asked;
  const asked = request(url, { signal });
  const entry = { asked, signal, answered: false };
  answers.set(url, entry);
  asked.then(
    () => {
      entry.answered = true;
    },
    () => {
      if (answers.get(url) === entry) answers.delete(url);
    },
  );
  return asked;
}

/** GET /api/v1/models?query=...: the best matches, as list items. */
export async function searchModels(query, signal) {
  const body = await get("models", { query, limit: "8" }, signal);
  return body.data.items;
}

/**
 * POST /api/v1/estimate. Each row of `data.estimates` carries the model's `prices`: exactly what
 * the server estimated with (its reference channel, standard and batch tiers; see the `price_rule`
 * under `data.assumptions`). The page feeds those rows to the WASM estimator, so its numbers
 * follow the server's price choice without restating it. `ids` null: the 10 cheapest active chat models.
 */
export async function estimateOnServer(workload, ids) {
  const body = { ...workload };
  if (ids) body.model_ids = ids;
  const answer = await request("estimate", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return answer.data;
}

/**
 * POST /api/v1/keys: a free key for this browser (docs/keys.md, "Keys on request"), kept and
 * used from then on. Not paced: it counts against the address's key requests, not its quota, so
 * it works when the quota is used up. Returns the answer's `data` (key, plan, limits, expiry).
 */
export async function requestFreeKey() {
  let res;
  try {
    res = await fetch(new URL("keys", API), { method: "POST", headers: { accept: "application/json" } });
  } catch {
    throw new ApiError("UNREACHABLE", "The pricing API cannot be reached. Is the server running?");
  }
  const body = await res.json().catch(() => null);
  if (!res.ok || !body || !body.data) {
    const error = (body && body.error) || {};
    throw new ApiError(error.code || `HTTP_${res.status}`, error.message || `The API answered ${res.status}.`, {
      status: res.status,
      nextStep: error.next_step,
      retryAfter: res.headers.get("retry-after") ? Number(res.headers.get("retry-after")) : null,
    });
  }
  setApiKey(body.data.key);
  return body.data;
}
