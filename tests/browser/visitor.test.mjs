// A new visitor, as a person would come: a fresh browser profile, no key, the anonymous plan of
// the server (60 requests an hour, 2 a second for the address). The models page, five model pages
// with real price history, the changes page and the calculator, one after another: every chart
// drawn, no rate-limit banner, and not one 429 in the server's access log; the requests each page
// cost are printed. Then the same visitor gets a free key in the page and opens 30 model pages
// within 5 minutes: every chart drawn, still no 429. Screenshots of each page in
// tests/artifacts/visitor-*.png (the model page's is the README's docs/model-page.png).
// Last, a visitor whose anonymous hour runs out: one 429, a banner a person reads, no request
// sent again before its Retry-After, and "Get a free key" in the banner loads the page with one.
//
//   bash scripts/build-web-demo.sh && cargo build --bin pricing && node --test tests/browser/visitor.test.mjs

import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { artifacts, startSession } from "./harness.mjs";

const FIVE_MODELS = ["openai:o3", "deepseek:deepseek-chat", "openai:gpt-4o", "google:gemini-2.5-flash", "anthropic:claude-3-5-haiku"];

describe("a new visitor without a key, then with a free key", () => {
  let session;
  let page;
  let base;
  const costs = [];

  before(async () => {
    session = await startSession();
    ({ page, base } = session);
    mkdirSync(artifacts, { recursive: true });
  });

  after(async () => {
    if (costs.length) console.log(`requests per page:\n${costs.map(([name, n]) => `  ${n}  ${name}`).join("\n")}`);
    if (session) await session.close();
  });

  /** The API requests the server logged since `from` (an index into its log). */
  const apiRequests = (from) => session.requests.slice(from).filter((r) => r.path.startsWith("/api/v1/") && r.path !== "/api/v1/health");
  const refused = () => session.requests.filter((r) => r.status === 429);

  /**
   * Opens `url` (or runs `open`), waits until the page is done, and records what it cost: the
   * API requests the server logged meanwhile. Each page is left settled before the next.
   */
  async function visit(name, open, done) {
    const from = session.requests.length;
    await open();
    await done();
    // Every request the page made is answered, so the access log has it.
    await page.waitForLoadState("networkidle");
    const cost = apiRequests(from).length;
    costs.push([name, cost]);
    return cost;
  }

  /** The page shows no banner (no rate limit, no other error). */
  async function noBanner(name) {
    const banner = await page.$eval("#banner", (b) => (b.hidden ? "" : b.textContent));
    assert.equal(banner, "", `${name}: a banner shows`);
  }

  /** A model page whose chart is drawn: uPlot's lines, with points, and the steps table. */
  async function chartDrawn(name) {
    await page.waitForSelector("body[data-chart=ready]", { timeout: 20_000 });
    const chart = await page.evaluate(() => {
      const u = document.getElementById("chart").chart;
      if (!u) return null;
      return { lines: u.series.length - 1, points: u.data[0].length, priced: u.data.slice(1).some((ys) => ys.some((y) => y !== null)) };
    });
    assert.ok(chart && chart.lines > 0 && chart.points > 1 && chart.priced, `${name}: the price history chart is drawn: ${JSON.stringify(chart)}`);
    assert.ok((await page.locator("#steps tbody tr").count()) > 0, `${name}: the steps table`);
  }

  test("the models page, five model pages, the changes page and the calculator, one after another", async () => {
    await visit("models", () => page.goto(`${base}/demo/models.html`), () => page.waitForSelector("body[data-ready=true]"));
    await noBanner("models");
    assert.equal(await page.locator("#models tbody tr").count(), 20);
    await page.screenshot({ path: join(artifacts, "visitor-1-models.png"), fullPage: true });
    assert.equal(await page.getAttribute("#key-box", "data-key"), "no");
    assert.ok(await page.isVisible("#get-key"), "a visible \"Get a free key\"");

    let n = 2;
    for (const id of FIVE_MODELS) {
      const name = `model ${id}`;
      await visit(name, () => page.goto(`${base}/demo/model.html?id=${id}`), () => chartDrawn(name));
      await noBanner(name);
      const slug = id.split(":")[1];
      await page.screenshot({ path: join(artifacts, `visitor-${n++}-model-${slug}.png`), fullPage: true });
      if (id === "openai:o3") {
        // The README's picture of the model page (docs/model-page.png) is this one.
        await page.screenshot({ path: join(artifacts, "model-page.png"), fullPage: true });
        // Back to the models page within the minute of its answer's Cache-Control: the browser's
        // cache answers, the server is not asked.
        const again = await visit("models again", () => page.goto(`${base}/demo/models.html`), () => page.waitForSelector("body[data-ready=true]"));
        assert.equal(again, 0, "the models page's answer came from the browser's cache");
      }
    }

    await visit("changes", () => page.goto(`${base}/demo/changes.html`), () => page.waitForSelector("body[data-ready=true]"));
    await noBanner("changes");
    assert.ok((await page.locator("#events tbody tr").count()) > 0);
    await page.screenshot({ path: join(artifacts, `visitor-${n++}-changes.png`), fullPage: true });

    // The calculator, from the last model page's link: that model's monthly cost and its chart.
    await page.goto(`${base}/demo/model.html?id=${FIVE_MODELS.at(-1)}`);
    await chartDrawn("back to the last model");
    const calc = await page.getAttribute("#calc-link", "href");
    await visit(
      "calculator",
      () => page.click("#calc-link"),
      async () => {
        await page.waitForSelector("body[data-ready=true]");
        await page.waitForFunction(() => {
          const u = document.getElementById("cost-chart")?.chart;
          return u && u.series.length > 1;
        }, null, { timeout: 20_000 });
      },
    );
    assert.match(page.url(), new RegExp(calc.replace(/[.?*+^$()[\]\\|]/g, "\\$&").replace("./", "/demo/")));
    await noBanner("calculator");
    await page.screenshot({ path: join(artifacts, `visitor-${n++}-calculator.png`), fullPage: true });

    assert.deepEqual(refused(), [], "no request was refused (429)");
    const spent = apiRequests(0).length;
    assert.ok(spent <= 30, `${spent} requests: well within the anonymous hour's 60`);
    assert.ok(session.requests.some((r) => r.caller === "anonymous"), "the pages went as an anonymous visitor");
  });

  test("with a free key got in the page, 30 model pages within 5 minutes", async () => {
    // Thirty priced models, from the models page (two pages of the listing).
    await page.goto(`${base}/demo/models.html?sort=price_input_asc`);
    await page.waitForSelector("body[data-ready=true]");
    const from = session.requests.length;
    await page.click("#get-key");
    await page.waitForSelector("#key-box[data-key=yes]");
    const issued = session.requests.slice(from).filter((r) => r.path === "/api/v1/keys");
    assert.deepEqual(issued.map((r) => [r.method, r.status]), [["POST", 201]]);
    const key = await page.evaluate(() => window.localStorage.getItem("pricing-api-key"));
    assert.match(key, /^pr_live_[0-9A-Za-z]{43}$/, "the key is kept in the browser");
    await page.screenshot({ path: join(artifacts, "visitor-key.png") });

    const ids = [];
    const collect = async () =>
      ids.push(...(await page.$$eval("#models tbody tr", (rows) =>
        rows.filter((r) => r.querySelector('[data-component="input"]').dataset.exact !== "").map((r) => r.dataset.modelId))));
    await collect();
    await page.click("#next");
    await page.waitForFunction(() => window.location.search.includes("cursor="));
    await page.waitForFunction(() => !document.getElementById("count").textContent.startsWith("Loading"));
    await collect();
    assert.ok(ids.length >= 30, `${ids.length} priced models listed`);

    const started = Date.now();
    for (const id of ids.slice(0, 30)) {
      const name = `keyed model ${id}`;
      await visit(name, () => page.goto(`${base}/demo/model.html?id=${id}`), () => chartDrawn(name));
      await noBanner(name);
    }
    const seconds = (Date.now() - started) / 1000;
    console.log(`30 model pages with the free key in ${seconds.toFixed(1)} s`);
    assert.ok(seconds < 300, `30 model pages took ${seconds} s`);
    const keyed = session.requests.slice(from).filter((r) => r.path.startsWith("/api/v1/models/"));
    assert.ok(keyed.length >= 30 && keyed.every((r) => r.caller === key.slice(0, 20)), "the model pages went with the key");
    await page.screenshot({ path: join(artifacts, "visitor-keyed-model.png"), fullPage: true });
    assert.deepEqual(refused(), [], "no request was refused (429)");
  });

  test("nothing was loaded from another host, and no page logged an error", () => {
    assert.deepEqual(session.outside, []);
    assert.deepEqual(session.errors, []);
  });
});

describe("a visitor whose anonymous quota runs out", () => {
  let session;
  let page;
  let base;

  before(async () => {
    session = await startSession();
    ({ page, base } = session);
    // An hour of 3 requests for this server's anonymous plan, set beside the running server.
    await session.pricing(["keys", "set-plan", "anonymous", "--quota", "3"]);
  });

  after(async () => {
    if (session) await session.close();
  });

  const refused = () => session.requests.filter((r) => r.status === 429);

  test("gets one 429, a sentence with the wait, nothing sent again early, and a free key from the banner", async () => {
    for (const id of ["openai:o3", "openai:gpt-4o", "deepseek:deepseek-chat"]) {
      await page.goto(`${base}/demo/model.html?id=${id}`);
      await page.waitForSelector("body[data-chart=ready]");
    }
    await page.goto(`${base}/demo/model.html?id=google:gemini-2.5-flash`);
    await page.waitForSelector("#banner:not([hidden])");
    assert.equal(refused().length, 1, "the fourth request of the hour was refused");
    const text = await page.textContent("#banner span");
    assert.match(text, /^Too many requests for now: the anonymous plan allows 2 a second and 3 an hour\. Try again in \d+ (s|min), or get a free key\.$/);
    await page.screenshot({ path: join(artifacts, "visitor-rate-limited.png") });

    // Another page: the queue knows the wait, and sends nothing before it is over.
    const before = session.requests.length;
    await page.goto(`${base}/demo/models.html`);
    await page.waitForSelector("#banner:not([hidden])");
    assert.match(await page.textContent("#banner span"), /^Too many requests for now: the anonymous plan/);
    await page.waitForLoadState("networkidle");
    assert.deepEqual(session.requests.slice(before).filter((r) => r.path.startsWith("/api/v1/")), [], "no request sent before Retry-After");

    // The banner's button: a free key, kept, and the page loads again with it.
    await Promise.all([page.waitForEvent("load"), page.click("#banner .get-key")]);
    await page.waitForSelector("body[data-ready=true]");
    assert.equal(await page.getAttribute("#key-box", "data-key"), "yes");
    assert.equal(await page.locator("#models tbody tr").count(), 20);
    assert.ok(await page.$eval("#banner", (b) => b.hidden), "no banner with the key");
    assert.equal(refused().length, 1, "no other 429");
    await page.screenshot({ path: join(artifacts, "visitor-after-key.png") });
  });
});
