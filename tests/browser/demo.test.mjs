// The browser test of the calculator at /demo/: a real `pricing serve` on a fresh embedded
// database (the bundled dataset), Debian's chromium driven by playwright-core.
//
//   bash scripts/build-web-demo.sh && cargo build --bin pricing
//   (cd web-demo && npm ci) && node --test tests/browser/
//
// It picks two models, changes the workload, reads the costs the page shows and checks them
// against POST /api/v1/estimate for the same input; runs the shared vectors in the page's WASM;
// checks the cost chart (the WASM series export) against the table, the URL reproduces the
// calculation and that errors show in the page; checks accessibility (axe-core) and saves
// screenshots to tests/artifacts/calculator-{desktop,phone}.png. The harness (harness.mjs) says
// which paths the environment overrides.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { apiEstimate as harnessEstimate, assertAccessible, root, screenshots, startSession, stopServer } from "./harness.mjs";

const vectors = JSON.parse(readFileSync(join(root, "estimator/vectors/vectors.json"), "utf8"));

const FIELDS = ["input", "cached_input", "cache_write", "output", "batch_traffic", "total"];

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
  let session;
  let server;
  let base;
  let context;
  let page;
  const picked = [];

  const apiEstimate = (body) => harnessEstimate(base, body);

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
    session = await startSession();
    ({ base, server, context, page } = session);
  });

  after(async () => {
    if (session) await session.close();
  });

  test("the page loads its WASM estimator from the server, nothing from elsewhere", async () => {
    const res = await page.goto(`${base}/demo/`);
    assert.equal(res.status(), 200);
    await page.waitForSelector("body[data-ready=true]");
    assert.match(await page.textContent("#engine"), /running as WebAssembly/);
    assert.equal(await page.locator("#preset option").count(), 8, "custom + 7 presets");
    assert.deepEqual(session.outside, []);
  });

  test("two picked models show the same costs as POST /api/v1/estimate", async () => {
    picked.push(await pickFirstMatch("gpt-4o"));
    picked.push(await pickFirstMatch("claude sonnet"));
    assert.notEqual(picked[0], picked[1]);
    // Checked before this test asks the API itself, which shares the page's burst budget.
    assert.deepEqual(session.errors, [], "console errors");
    assert.deepEqual(session.outside, []);

    await page.fill("#requests", "25000");
    await page.selectOption("#preset", "rag_qa");
    await page.focus("#cache");
    for (let i = 0; i < 30; i++) await page.keyboard.press("ArrowRight"); // 30 %
    await page.locator("#batch").evaluate((el) => {
      el.value = "20";
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.locator("#writes").evaluate((el) => {
      el.value = "20";
      el.dispatchEvent(new Event("input", { bubbles: true }));
    });
    await page.selectOption("#service-tier", "priority");
    assert.equal(await page.textContent("#cache-out"), "30%");
    assert.equal(await page.textContent("#batch-out"), "20%");
    assert.equal(await page.textContent("#writes-out"), "20%");

    const workload = {
      requests_per_month: 25000, preset: "rag_qa", cache_hit_rate: 0.3, batch_share: 0.2,
      cache_write_share: 0.2, service_tier: "priority",
    };
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

  });

  test("the cost chart draws both models, every point from the WASM series export", async () => {
    await page.locator("#cost-chart-panel:not([hidden]) #cost-chart canvas").waitFor();
    const legend = await page.$$eval("#cost-chart .u-legend .u-series .u-label", (labels) => labels.map((l) => l.textContent));
    assert.equal(legend.length, 3, `x and two models: ${legend}`);
    // The chart's data at the workload's own volume is the table's total, to the last decimal.
    const yours = await page.$$eval("#cost-points tbody tr.current td", (cells) =>
      Object.fromEntries(cells.map((td) => [td.dataset.modelId, td.dataset.exact])));
    const table = await shownCosts(page);
    assert.deepEqual(yours, Object.fromEntries(table.map((r) => [r.model_id, r.exact])));
    assert.equal(await page.getAttribute("#cost-points tbody tr.current", "data-requests"), "25000");
    // Hovering the chart shows a point's exact cost in the legend.
    await page.locator("#cost-chart .u-over").scrollIntoViewIfNeeded();
    const box = await page.locator("#cost-chart .u-over").boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const values = await page.$$eval("#cost-chart .u-legend .u-series .u-value", (cells) => cells.map((c) => c.textContent));
    assert.match(values[0], /requests$/);
    for (const v of values.slice(1)) assert.match(v, /^\$\d+\.\d{6}$/);

    await assertAccessible(page, "calculator");
    await screenshots(page, "calculator");
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
    assert.match(await page.textContent("#requests-error"), /`requests_per_month` must be an integer >= 1/);
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

  test("the 10 cheapest start is the server's default set: 10 chat models", async () => {
    const other = await context.newPage();
    await other.goto(`${base}/demo/?requests=1000&preset=chatbot`);
    await other.waitForSelector("body[data-ready=true]");
    assert.match(await other.textContent("#cheapest"), /10 cheapest chat models/);
    await other.click("#cheapest");
    await other.waitForFunction(() => document.querySelectorAll("#costs tbody tr").length === 10);
    const shown = await shownCosts(other);
    await other.close();
    const server = await apiEstimate({ requests_per_month: 1000, preset: "chatbot" });
    assert.equal(server.assumptions.model_selection, "cheapest_active_chat");
    assert.deepEqual(server.estimates.map((r) => r.kind), Array(10).fill("chat"));
    // Same models, same costs: the page bills the server's rows in its WASM.
    assert.deepEqual(shown.map((r) => [r.model_id, r.exact]),
      server.estimates.map((r) => [r.model_id, r.cost_per_month.total]));
    for (const id of ["black-forest-labs:flux-1-dev-controlnet-union", "baai:bge-m3", "paddlepaddle:paddleocr-vl"]) {
      assert.ok(!shown.some((r) => r.model_id === id), `${id} is not a chat model`);
    }
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
