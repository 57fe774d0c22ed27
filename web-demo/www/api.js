// The pricing REST API as the pages use it: GETs (remembered for the page's life), model search,
// and the prices POST /api/v1/estimate computes with. Every failure becomes an ApiError whose
// message can be shown as is; a short 429 (the burst limit) is waited out.

const API = new URL("/api/v1/", window.location.href);

/** An error answer of the API, or no answer at all (`code` "UNREACHABLE"). */
export class ApiError extends Error {
  constructor(code, message, { status = 0, nextStep = null, didYouMean = [], retryAfter = null } = {}) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = status;
    this.nextStep = nextStep;
    this.didYouMean = didYouMean;
    this.retryAfter = retryAfter;
  }
}

/** Where the optional API key is kept: this tab only, never the shareable URL. */
const KEY_STORAGE = "pricing-api-key";

export function apiKey() {
  try {
    return window.sessionStorage.getItem(KEY_STORAGE) || "";
  } catch {
    return "";
  }
}

export function setApiKey(key) {
  try {
    if (key) window.sessionStorage.setItem(KEY_STORAGE, key);
    else window.sessionStorage.removeItem(KEY_STORAGE);
  } catch {
    // Storage disabled: the key lasts until the page is left.
  }
}

// A 429 from the burst limit asks to wait a second or two: wait and retry, up to this long in
// all. A longer Retry-After (the hourly quota) is reported instead.
const MAX_RETRY_WAIT_SECONDS = 5;

function sleep(seconds, signal) {
  return new Promise((resolve, reject) => {
    const timer = window.setTimeout(resolve, seconds * 1000);
    if (signal) {
      signal.addEventListener("abort", () => {
        window.clearTimeout(timer);
        reject(new DOMException("aborted", "AbortError"));
      }, { once: true });
    }
  });
}

// The burst limits of spec part 8 (per second: 2 anonymous, 5 with a free key). Requests are
// spaced to fit them, with a margin for the network's jitter, so the pages seldom meet a 429.
// The bucket is kept in sessionStorage: the pages of one tab share their visitor's budget.
const BURST_PER_SECOND = { anonymous: 2, key: 5 };
const BUCKET_STORAGE = "pricing-burst-bucket";
const JITTER_MS = 50;

function loadBucket(rate) {
  try {
    const saved = JSON.parse(window.sessionStorage.getItem(BUCKET_STORAGE));
    if (saved && saved.rate === rate) return saved;
  } catch {
    // No storage or unreadable: start full.
  }
  return { rate, tokens: rate, at: Date.now() };
}

/** Waits until one more request fits the burst limit, and takes it. */
async function pace(signal) {
  const rate = apiKey() ? BURST_PER_SECOND.key : BURST_PER_SECOND.anonymous;
  const step = 1000 / rate + JITTER_MS;
  const bucket = loadBucket(rate);
  const now = Date.now();
  bucket.tokens = Math.min(rate, bucket.tokens + (now - bucket.at) / step);
  bucket.at = now;
  // Taken now even when waiting, so requests made meanwhile queue behind this one.
  bucket.tokens -= 1;
  try {
    window.sessionStorage.setItem(BUCKET_STORAGE, JSON.stringify(bucket));
  } catch {
    // No storage: pacing holds within this page only.
  }
  if (bucket.tokens < 0) await sleep((-bucket.tokens * step) / 1000, signal);
}

async function request(path, init = {}) {
  let waited = 0;
  for (;;) {
    try {
      return await requestOnce(path, init);
    } catch (err) {
      const wait = err instanceof ApiError && err.status === 429 ? Math.max(1, err.retryAfter || 1) : null;
      if (wait === null || waited + wait > MAX_RETRY_WAIT_SECONDS) throw err;
      waited += wait;
      await sleep(wait, init.signal);
    }
  }
}

async function requestOnce(path, init) {
  await pace(init.signal);
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
    throw new ApiError((error && error.code) || `HTTP_${res.status}`, message, {
      status: res.status,
      nextStep: error && error.next_step,
      didYouMean: (error && error.did_you_mean) || [],
      retryAfter: retryAfter ? Number(retryAfter) : null,
    });
  }
  if (body === null) {
    throw new ApiError("BAD_RESPONSE", `The API answered ${res.status} without a JSON body.`, { status: res.status });
  }
  return body;
}

// GET answers this page already had. The data changes only when a publish lands, and every
// request counts against the visitor's quota, so an answer is asked for once per page load.
const answers = new Map();

/**
 * GET `path` (relative to /api/v1/) with the query `params` (empty values left out): the whole
 * envelope (`data`, `pagination`, ...). Remembered for the page's life.
 */
export async function get(path, params = {}, signal) {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== "" && value != null) q.set(key, value);
  }
  const url = q.size ? `${path}?${q}` : path;
  if (answers.has(url)) return answers.get(url);
  const body = await request(url, { signal });
  answers.set(url, body);
  return body;
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
