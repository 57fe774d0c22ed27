// The browser test of the calculator at /demo/: a real `pricing serve` on a fresh embedded
// database (the bundled dataset), Debian's chromium driven by playwright-core.
//
//   bash scripts/build-web-demo.sh && cargo build --bin pricing
//   (cd web-demo && npm ci) && node --test tests/browser/
//
// It picks two models, changes the workload, reads the costs the page shows and checks them
// against POST /api/v1/estimate for the same input; runs the shared vectors in the page's WASM;
// checks the URL reproduces the calculation and that errors show in the page; saves a screenshot
// to tests/artifacts/demo.png.
//
// Environment: PRICING_BIN (default target/debug/pricing), CHROMIUM (default /usr/bin/chromium),
// PRICING_DEMO_DIR (default web-demo/dist).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { after, before, describe, test } from "node:test";

const root = new URL("../../", import.meta.url).pathname;
const bin = process.env.PRICING_BIN || join(root, "target/debug/pricing");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const demoDir = process.env.PRICING_DEMO_DIR || join(root, "web-demo/dist");
const artifacts = join(root, "tests/artifacts");
const vectors = JSON.parse(readFileSync(join(root, "estimator/vectors/vectors.json"), "utf8"));

for (const [path, fix] of [
  [join(demoDir, "index.html"), "bash scripts/build-web-demo.sh"],
  [bin, "cargo build --bin pricing"],
  [chromiumPath, "apt-get install -y chromium"],
  [join(root, "web-demo/node_modules/playwright-core"), "cd web-demo && npm ci"],
]) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${fix}`);
}
const { chromium } = createRequire(join(root, "web-demo/package.json"))("playwright-core");

const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** Starts `pricing serve` on a free port; resolves with {base, child} once it serves. */
function startServer(dataDir) {
  const child = spawn(
    bin,
    ["--log-format", "json", "serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0", "--demo-dir", demoDir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const tail = [];
  let timer;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    lines.on("line", (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      try {
        const event = JSON.parse(line);
        const fields = event.fields || {};
        if (fields.message === "serving" && fields.addr) {
          clearTimeout(timer);
          resolve({ base: `http://${fields.addr}`, child });
        }
      } catch {
        // not a JSON log line
      }
    });
    child.stdout.resume();
    child.on("exit", (code) => reject(new Error(`pricing serve exited (${code}) before serving:\n${tail.join("\n")}`)));
    // First start (initdb, migrations, the bundled publish) takes seconds; give up after two minutes.
    timer = setTimeout(() => {
      child.kill("SIGTERM");
      reject(new Error(`pricing serve did not serve within 120 s:\n${tail.join("\n")}`));
    }, 120_000);
    timer.unref();
  });
}

function stopServer(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM"); // the server stops its embedded PostgreSQL on the way out
  });
}

const FIELDS = ["input", "cached_input", "output", "batch_traffic", "total"];

/** The exact amounts the page shows, by model id, in row order. */
async function shownCosts(page) {
  return page.$$eval("#costs tbody tr", (rows) =>
    rows.map((tr) => ({
      model_id: tr.dataset.modelId,
      dollars: tr.querySelector(".total-dollars").textContent,
      exact: tr.querySelector(".total .exact").textContent,
      cost: Object.fromEntries([...tr.querySelectorAll("[data-field]")].map((td) => [td.dataset.field, td.dataset.exact])),
    })),
  );
}

/** "$1,234.57" from "1234.567890", rounded half away from zero (the page's display rule). */
function dollarsOf(text) {
  const [whole, fraction] = text.split(".");
  const cents = (BigInt(whole + fraction) + 5000n) / 10000n;
  const units = (cents / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  return `$${units}.${(cents % 100n).toString().padStart(2, "0")}`;
}

describe("the calculator at /demo/", () => {
  let dataDir;
  let profileDir;
  let server;
  let base;
  let context;
  let page;
  const picked = [];

  /** POST /api/v1/estimate as an anonymous client, like the page (waiting out a burst 429). */
  async function apiEstimate(body) {
    for (let attempt = 0; ; attempt++) {
      const res = await fetch(`${base}/api/v1/estimate`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      if (res.status === 429 && attempt < 3) {
        await new Promise((resolve) => setTimeout(resolve, 1000 * Number(res.headers.get("retry-after") || 1)));
        continue;
      }
      assert.equal(res.status, 200, await res.clone().text());
      return (await res.json()).data;
    }
  }

  /** Picks the first search result that has a price (Enter when it is the first match). */
  async function pickFirstMatch(query) {
    await page.fill("#search", query);
    await page.locator("#results button.result").first().waitFor();
    const priced = await page.$$eval("#results button.result", (buttons) => buttons.map((b) => b.dataset.priced === "true"));
    const index = priced.indexOf(true);
    assert.ok(index >= 0, `a priced model among the matches for ${query}`);
    const result = page.locator("#results button.result").nth(index);
    const id = await result.getAttribute("data-model-id");
    if (index === 0) await page.keyboard.press("Enter"); // Enter adds the first match
    else await result.click();
    await page.locator(`#costs tbody tr[data-model-id="${id}"]`).waitFor();
    return id;
  }

  before(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "pricing-browser-data-"));
    chmodSync(dataDir, 0o755); // as root, the embedded PostgreSQL runs as another user
    profileDir = mkdtempSync(join(tmpdir(), "pricing-browser-profile-"));
    ({ base, child: server } = await startServer(join(dataDir, "embedded")));
    context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: { width: 1360, height: 900 },
    });
    page = context.pages()[0] || (await context.newPage());
    page.on("pageerror", (err) => console.error("page error:", err));
  });

  after(async () => {
    if (context) await context.close();
    await stopServer(server);
    for (const dir of [dataDir, profileDir]) if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test("the page loads its WASM estimator from the server, nothing from elsewhere", async () => {
    const outside = [];
    page.on("request", (req) => {
      if (!req.url().startsWith(base) && !req.url().startsWith("data:")) outside.push(req.url());
    });
    const res = await page.goto(`${base}/demo/`);
    assert.equal(res.status(), 200);
    await page.waitForSelector("body[data-ready=true]");
    assert.match(await page.textContent("#engine"), /running as WebAssembly/);
    assert.equal(await page.locator("#preset option").count(), 8, "custom + 7 presets");
    assert.deepEqual(outside, []);
  });

  test("two picked models show the same costs as POST /api/v1/estimate", async () => {
    picked.push(await pickFirstMatch("gpt-4o"));
    picked.push(await pickFirstMatch("claude sonnet"));
    assert.notEqual(picked[0], picked[1]);

    await page.fill("#requests", "25000");
    await page.selectOption("#preset", "rag_qa");
    await page.focus("#cache");
    for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowRight"); // 30 %
    await page.locator("#batch").evaluate((el) => {
      el.value = "20";
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
    assert.equal(await page.textContent("#cache-out"), "30%");
    assert.equal(await page.textContent("#batch-out"), "20%");

    const workload = { requests_per_month: 25000, preset: "rag_qa", cache_hit_rate: 0.3, batch_share: 0.2 };
    const server = await apiEstimate({ ...workload, model_ids: picked });
    const shown = await shownCosts(page);
    assert.deepEqual(shown.map((r) => r.model_id), server.estimates.map((r) => r.model_id), "cheapest first, like the server");
    for (const row of server.estimates) {
      const mine = shown.find((r) => r.model_id === row.model_id);
      for (const field of FIELDS) {
        const serverField = field;
        assert.equal(mine.cost[field], row.cost_per_month[serverField], `${row.model_id} ${field}`);
      }
      assert.equal(mine.exact, row.cost_per_month.total);
      assert.equal(mine.dollars, dollarsOf(row.cost_per_month.total));
    }
    const t = server.assumptions.tokens_per_month;
    const summary = await page.textContent("#summary");
    assert.match(summary, /25,000 requests × 3,000 input \/ 300 output tokens/);
    assert.ok(summary.includes(Number(t.input).toLocaleString("en-US")), summary);

    await page.click("#check");
    await page.waitForSelector("#check-status[data-result]");
    assert.equal(await page.getAttribute("#check-status", "data-result"), "identical");

    mkdirSync(artifacts, { recursive: true });
    await page.screenshot({ path: join(artifacts, "demo.png"), fullPage: true });
  });

  test("the URL holds the calculation and reproduces it", async () => {
    const url = new URL(page.url());
    assert.equal(url.searchParams.get("models"), picked.join(","));
    assert.equal(url.searchParams.get("requests"), "25000");
    assert.equal(url.searchParams.get("preset"), "rag_qa");
    assert.equal(url.searchParams.get("cache_hit_rate"), "0.3");
    assert.equal(url.searchParams.get("batch_share"), "0.2");

    const before = await shownCosts(page);
    const other = await context.newPage();
    await other.goto(url.href);
    await other.waitForSelector("body[data-ready=true]");
    await other.locator(`#costs tbody tr[data-model-id="${picked[1]}"]`).waitFor();
    assert.deepEqual(await shownCosts(other), before);
    assert.equal(await other.inputValue("#requests"), "25000");
    await other.close();
  });

  test("the shared vectors give the expected strings in the page's WASM", async () => {
    const results = await page.evaluate(async (cases) => {
      const wasm = await import("./pkg/web_demo.js");
      return cases.map((v) => {
        try {
          const row = wasm.estimate(v.workload, [{ model_id: "vector:model", prices: v.prices }]).estimates[0];
          return { tokens: row.tokens_per_month, cost: row.cost_per_month, codes: row.assumptions.map((a) => a.code) };
        } catch (err) {
          return { errorField: err.field };
        }
      });
    }, vectors);
    assert.equal(results.length, vectors.length);
    vectors.forEach((v, i) => {
      const got = results[i];
      if (v.expected_error) {
        assert.equal(got.errorField, v.expected_error.field, v.name);
        return;
      }
      assert.deepEqual(got.tokens, v.expected.tokens_per_month, v.name);
      assert.deepEqual(got.cost, v.expected.cost_per_month, v.name);
      assert.deepEqual(got.codes, v.expected.assumptions, v.name);
    });
  });

  test("bad input is shown next to its field", async () => {
    await page.fill("#requests", "0");
    await page.waitForSelector("#requests-error:not([hidden])");
    assert.match(await page.textContent("#requests-error"), /`requests_per_month` must be an integer >= 1, got 0/);
    assert.equal(await page.getAttribute("#requests", "aria-invalid"), "");
    await page.fill("#requests", "1000");
    await page.waitForSelector("#requests-error", { state: "hidden" });

    await page.selectOption("#preset", "");
    await page.waitForSelector("#workload-error:not([hidden])");
    assert.match(await page.textContent("#workload-error"), /no token volumes/);
    await page.fill("#input-tokens", "800");
    await page.fill("#output-tokens", "200");
    await page.waitForSelector("#workload-error", { state: "hidden" });
  });

  test("an unknown model is shown with suggestions", async () => {
    await page.goto(`${base}/demo/?models=${picked[0]},openai:gpt-4o-nonexistent-zz&requests=100&preset=chatbot`);
    await page.waitForSelector("body[data-ready=true]");
    const bad = page.locator('#picked li.bad[data-model-id="openai:gpt-4o-nonexistent-zz"]');
    await bad.waitFor();
    assert.match(await bad.textContent(), /no model/);
    assert.ok((await bad.locator(".suggestions button").count()) > 0, "did_you_mean offered");
    // The known model is still estimated.
    await page.locator(`#costs tbody tr[data-model-id="${picked[0]}"]`).waitFor();
  });

  test("an API that is down is reported in the page", async () => {
    await stopServer(server);
    await page.fill("#search", "llama");
    await page.waitForSelector("#banner:not([hidden])");
    assert.equal(await page.getAttribute("#banner", "data-code"), "UNREACHABLE");
    assert.match(await page.textContent("#banner"), /cannot be reached/);
    // The calculation itself keeps working without the server.
    await page.fill("#requests", "2000");
    await page.locator(`#costs tbody tr[data-model-id="${picked[0]}"]`).waitFor();
  });
});
