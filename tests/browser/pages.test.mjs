// The browser tests of the pages beside the calculator (models, a model's page, changes): a real
// `pricing serve` on the bundled dataset, Debian's chromium (harness.mjs). Each page is driven as
// a person would, its answers read from the page; each is checked with axe-core and saved as
// screenshots at desktop and phone widths (tests/artifacts/<page>-{desktop,phone}.png). No
// test here asks the API itself: the pages spend the anonymous quota (60 requests an hour) alone.
//
//   bash scripts/build-web-demo.sh && cargo build --bin pricing && node --test tests/browser/

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { assertAccessible, screenshots, startSession } from "./harness.mjs";

/** Compares two decimal strings exactly (no floats): negative, zero or positive. */
function compareDecimal(a, b) {
  const [ai, af = ""] = a.split(".");
  const [bi, bf = ""] = b.split(".");
  const scale = Math.max(af.length, bf.length);
  const x = BigInt(ai + af.padEnd(scale, "0"));
  const y = BigInt(bi + bf.padEnd(scale, "0"));
  return x < y ? -1 : x > y ? 1 : 0;
}

describe("the pages beside the calculator", () => {
  let session;
  let page;
  let base;

  before(async () => {
    session = await startSession();
    ({ page, base } = session);
  });

  after(async () => {
    if (session) await session.close();
  });

  /** The rows of the models table: id, provider, status and the exact prices. */
  const modelRows = () =>
    page.$$eval("#models tbody tr", (rows) =>
      rows.map((tr) => ({
        id: tr.dataset.modelId,
        provider: tr.children[1].textContent,
        input: tr.querySelector('[data-component="input"]').dataset.exact,
      })));

  /** Waits until the listing shows the answer for the address's current filters. */
  async function settled(urlPart) {
    await page.waitForFunction((part) => window.location.search.includes(part), urlPart);
    await page.waitForFunction(() => !document.getElementById("count").textContent.startsWith("Loading"));
  }

  describe("models", () => {
    test("a search with filters and sort, paged forward and back", async () => {
      await page.goto(`${base}/demo/models.html`);
      await page.waitForSelector("body[data-ready=true]");
      assert.equal(await page.locator("#models tbody tr").count(), 20);
      assert.equal(await page.getAttribute('nav a[aria-current="page"]', "href"), "models.html");

      // One change at a time: typing is asked for after a pause, a choice at once.
      await page.fill("#f-provider", "openai");
      await settled("provider=openai");
      await page.selectOption("#f-sort", "price_input_asc");
      await settled("sort=price_input_asc");
      const first = await modelRows();
      assert.equal(first.length, 20);
      assert.ok(first.every((r) => r.provider === "openai"), JSON.stringify(first));
      const count = await page.textContent("#count");
      const total = Number(/of (\d+) models/.exec(count)[1]);
      assert.ok(total > 20, count);
      const priced = first.filter((r) => r.input !== "");
      for (let i = 1; i < priced.length; i++) assert.ok(compareDecimal(priced[i - 1].input, priced[i].input) <= 0, "input price ascending");

      await page.click("#next");
      await settled("cursor=");
      const second = await modelRows();
      assert.match(await page.textContent("#count"), new RegExp(`^21–${20 + second.length} of ${total}`));
      assert.ok(second.every((r) => !first.some((f) => f.id === r.id)), "page 2 has other models");
      assert.ok(compareDecimal(first.at(-1).input || "0", second[0].input || first.at(-1).input || "0") <= 0, "the order goes on");
      const pageTwoUrl = page.url();

      await page.click("#prev");
      await page.waitForFunction(() => !window.location.search.includes("cursor=") && document.getElementById("count").textContent.startsWith("1–"));
      assert.deepEqual(await modelRows(), first);

      // The address is the view: it opens page 2 with the same filters.
      const other = await session.context.newPage();
      await other.goto(pageTwoUrl);
      await other.waitForSelector("body[data-ready=true]");
      assert.equal(await other.inputValue("#f-provider"), "openai");
      assert.deepEqual((await other.$$eval("#models tbody tr", (rows) => rows.map((tr) => tr.dataset.modelId))), second.map((r) => r.id));
      await other.close();
    });

    test("a free-text search finds the model and links to its page", async () => {
      await page.fill("#f-provider", "");
      // o3 is deprecated in the bundled dataset: the default status (active) leaves it out.
      await page.selectOption("#f-status", "all");
      await settled("status=all");
      await page.fill("#f-query", "o3");
      await settled("query=o3");
      await page.waitForFunction(() => !window.location.search.includes("provider="));
      const link = page.locator('#models tbody tr[data-model-id="openai:o3"] a');
      assert.equal(await link.getAttribute("href"), "model.html?id=openai:o3");
    });

    test("is accessible and fits a phone", async () => {
      await assertAccessible(page, "models");
      await screenshots(page, "models");
    });
  });

  describe("a model's page", () => {
    // OpenAI cut o3 from 10 / 40 to 2 / 8 on 2025-06-10, dated by OpenAI's API changelog
    // (tools/dataset/announcements.json): 10 from the launch to 2025-06-09, 2 from 2025-06-10,
    // one price_change event on that day (docs/publishing.md, "A stated cut dates the sources'
    // move").
    test("openai:o3: the card, and the official input line: 10 from launch, 2 from 2025-06-10", async () => {
      await page.click('#models tbody tr[data-model-id="openai:o3"] a');
      await page.waitForURL(/model\.html/);
      await page.waitForSelector("body[data-ready=true]");
      await page.waitForSelector("body[data-chart=ready]");
      assert.equal(await page.textContent("#title"), "o3");
      const facts = await page.textContent("#facts");
      assert.match(facts, /Context window200K tokens \(200000\)/);
      assert.match(facts, /Launched2025-04-16/);
      // The deprecation date is the dataset's (its lifecycle source's); the chart marks the
      // same day below.
      const deprecated = facts.match(/Deprecated(\d{4}-\d{2}-\d{2})/)?.[1];
      assert.ok(deprecated, facts);
      // Blended (3 x 2 + 8) / 4 = 3.5 on official, over the aggregate 93.96 (o3's Arena overall
      // 1431.8 against the best): 0.0372498..., rounded to 6 places as compare does.
      assert.equal(await page.textContent("#price-per-point"), "$0.03725 per 1M tokens per point (blended $3.5 on official ÷ 93.96)");
      assert.match(await page.textContent("#aliases"), /openai:o3-2025-04-16/);
      assert.equal(await page.getAttribute('#prices tr[data-channel="official"][data-tier="standard"] [data-component="input"]', "data-exact"), "2");
      assert.equal(await page.getAttribute("#calc-link", "href"), "./?models=openai:o3");

      // The chart's own data (uPlot's arrays), read in the page.
      const chart = await page.evaluate(() => {
        const u = document.getElementById("chart").chart;
        return { labels: u.series.map((s) => s.label), data: u.data };
      });
      const official = chart.labels.indexOf("official");
      assert.ok(official > 0, `an official line among ${chart.labels}`);
      const day = (date) => Date.UTC(...date.split("-").map((n, i) => Number(n) - (i === 1 ? 1 : 0))) / 1000;
      const at = chart.data[0].indexOf(day("2025-06-10"));
      assert.ok(at > 0, "a point on 2025-06-10");
      assert.equal(chart.data[official][at], 2);
      const before = chart.data[0]
        .map((x, i) => [x, chart.data[official][i]])
        .filter(([x]) => x >= day("2025-04-16") && x < day("2025-06-10"));
      assert.ok(before.length > 0 && before.every(([, v]) => v === 10), `10 on every point before the cut: ${before}`);
      assert.equal(chart.data[official][chart.data[0].indexOf(day("2025-04-16"))], 10, "10 from the launch");

      // Hovering the step shows its exact price and date.
      await page.evaluate((x) => {
        const u = document.getElementById("chart").chart;
        u.setCursor({ left: u.valToPos(x, "x"), top: 10 });
      }, day("2025-06-10"));
      const legend = await page.$$eval("#chart .u-legend .u-series", (rows) =>
        Object.fromEntries(rows.map((r) => [r.querySelector(".u-label").textContent, r.querySelector(".u-value").textContent])));
      assert.equal(legend.Date, "2025-06-10");
      assert.equal(legend.official, "$2");

      // The same steps as a table, and the events marked on the chart.
      const steps = await page.$$eval('#steps tbody tr[data-channel="official"]', (rows) => rows.map((r) => [r.dataset.from, r.dataset.value ?? null]));
      assert.deepEqual(steps, [["2025-04-16", "10"], ["2025-06-10", "2"]]);
      const markers = await page.$$eval("#markers li", (items) => items.map((li) => li.textContent));
      assert.ok(markers.includes("2025-04-16: launch"), markers.join("; "));
      assert.ok(markers.includes(`${deprecated}: deprecation`), markers.join("; "));
      assert.match(page.url(), /model\.html\?id=openai:o3$/);
    });

    test("a promotional price says until when, and the price after it is scheduled", async () => {
      // Google's page of 2026-08-13: Gemini 3.7 Flash's introductory 0.75 / 3.75 until
      // 2026-12-31, then 1.50 / 7.50 (docs/api.md, "Promotions").
      await page.goto(`${base}/demo/model.html?id=google:gemini-3.7-flash`);
      await page.waitForSelector("body[data-ready=true]");
      const official = '#prices tr[data-channel="official"][data-tier="standard"]';
      assert.equal(await page.getAttribute(`${official} [data-component="input"]`, "data-exact"), "0.75");
      const tag = page.locator(`${official} a.tag`);
      assert.equal(await tag.textContent(), "promotional until 2026-12-31");
      assert.equal(await tag.getAttribute("href"), "https://ai.google.dev/gemini-api/docs/latest-model");
      const scheduled = await page.textContent("#scheduled");
      assert.match(scheduled, /2027-01-01: official standard input becomes \$1\.5 per 1M/);
      // back to o3's page for the tests that follow
      await page.goto(`${base}/demo/model.html?id=openai:o3`);
      await page.waitForSelector("body[data-chart=ready]");
    });

    test("a model no channel prices now says so in its prices", async () => {
      // Cohere's embed-multilingual-light-v3.0: its only figure, litellm's 100 per 1M, is a unit
      // error (docs/publishing.md, "Screens"), so no price is in effect.
      await page.goto(`${base}/demo/model.html?id=cohere:embed-multilingual-light-v3.0`);
      await page.waitForSelector("body[data-ready=true]");
      assert.equal(await page.textContent("#prices tbody"), "No price is in effect on any channel now.");
      assert.equal(await page.$$eval("#prices tbody tr[data-channel]", (rows) => rows.length), 0);
      // back to o3's page for the tests that follow
      await page.goto(`${base}/demo/model.html?id=openai:o3`);
      await page.waitForSelector("body[data-chart=ready]");
    });

    test("another component redraws from the same card, and the address keeps it", async () => {
      await page.selectOption("#component", "output");
      await page.waitForFunction(() => document.body.dataset.chart === "ready" && window.location.search.includes("component=output"));
      const steps = await page.$$eval('#steps tbody tr[data-channel="official"]', (rows) => rows.map((r) => [r.dataset.from, r.dataset.value ?? null]));
      assert.deepEqual(steps, [["2025-04-16", "40"], ["2025-06-10", "8"]]);

      // Back to input: drawn again from the answers the page already has.
      await page.selectOption("#component", "input");
      await page.waitForFunction(() => document.body.dataset.chart === "ready" && !window.location.search.includes("component="));
      const input = await page.$$eval('#steps tbody tr[data-channel="official"]', (rows) => rows.map((r) => r.dataset.value ?? null));
      assert.deepEqual(input, ["10", "2"]);
    });

    test("is accessible and fits a phone", async () => {
      await assertAccessible(page, "model");
      await screenshots(page, "model");
    });
  });

  describe("changes", () => {
    test("filtered by provider and minimum significance, each event linking to its model", async () => {
      await page.click('nav a[href="changes.html"]');
      await page.waitForURL(/changes\.html/);
      await page.waitForSelector("body[data-ready=true]");
      const all = await page.$$eval("#events tbody tr", (rows) => rows.map((r) => r.children[0].textContent));
      assert.ok(all.length > 0);
      assert.deepEqual([...all].sort().reverse(), all, "newest first");

      await page.fill("#f-provider", "openai");
      await settled("provider=openai");
      await page.fill("#f-min-significance", "50");
      await settled("min_significance=50");
      const rows = await page.$$eval("#events tbody tr", (trs) =>
        trs.map((r) => ({ provider: r.dataset.provider, significance: Number(r.dataset.significance), href: r.querySelector("a").getAttribute("href"), shown: r.querySelector(".sig-value").textContent })));
      assert.ok(rows.length > 0, "openai has significant events");
      for (const r of rows) {
        assert.equal(r.provider, "openai");
        assert.ok(r.significance >= 50, `significance ${r.significance}`);
        assert.equal(r.shown, String(r.significance));
        assert.match(r.href, /^model\.html\?id=openai:/);
      }
      assert.match(await page.getAttribute("#rss", "href"), /^\/feeds\/changes\.xml\?.*provider=openai.*min_significance=50|^\/feeds\/changes\.xml\?.*min_significance=50.*provider=openai/);
      assert.match(await page.getAttribute("#jsonfeed", "href"), /^\/feeds\/changes\.json\?/);
    });

    test("is accessible and fits a phone", async () => {
      await assertAccessible(page, "changes");
      await screenshots(page, "changes");
    });

    test("an event opens its model's page", async () => {
      const link = page.locator("#events tbody tr a").first();
      const href = await link.getAttribute("href");
      await link.click();
      await page.waitForURL(/model\.html/);
      await page.waitForSelector("body[data-ready=true]");
      assert.equal(new URL(page.url()).searchParams.get("id"), new URLSearchParams(href.split("?")[1]).get("id"));
      assert.ok((await page.textContent("#title")).length > 0);
      await page.waitForSelector("body[data-chart=ready]");
    });
  });

  test("nothing was loaded from another host, and no page logged an error", () => {
    assert.deepEqual(session.outside, []);
    assert.deepEqual(session.errors, []);
  });
});
