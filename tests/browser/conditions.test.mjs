// The calculator on cards with regional and time-window rates: a real `pricing serve` on a fresh
// embedded database holding tests/fixtures/regional.json (DeepSeek V4 Pro's peak hours, Claude
// Sonnet 4.5's Bedrock `eu` zone, as litellm 1.109.1 states them; tests/api/regional.rs checks the
// fixture is the snapshot it tests the API with), Debian's chromium driven by playwright-core.
//
//   bash scripts/build-web-demo.sh && cargo build --bin pricing && node --test tests/browser/
//
// The page shows the region select with the regions the cards offer and the peak-share field
// with its default, and its totals equal POST /api/v1/estimate's for the same workload.

import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { apiEstimate as harnessEstimate, assertAccessible, root, startSession } from "./harness.mjs";

const DEEPSEEK = "deepseek:deepseek-v4-pro";
const CLAUDE = "anthropic:claude-sonnet-4-5";

describe("the calculator on regional and time-window rates", () => {
  let session;
  let base;
  let page;

  const apiEstimate = (body) => harnessEstimate(base, body);

  /** The exact total the page shows for `id`, once its row is there. */
  async function shownTotal(id) {
    const cell = page.locator(`#costs tbody tr[data-model-id="${id}"] .total .exact`);
    await cell.waitFor();
    return cell.textContent();
  }

  before(async () => {
    session = await startSession({ snapshot: join(root, "tests/fixtures/regional.json") });
    ({ base, page } = session);
  });

  after(async () => {
    if (session) await session.close();
  });

  test("the region select and the peak share appear and price like the server", async () => {
    const workload = { requests_per_month: 1000, input_tokens_per_request: 10000, output_tokens_per_request: 1000 };
    const query = `models=${DEEPSEEK},${CLAUDE}&requests=1000&preset=&input_tokens=10000&output_tokens=1000`;
    const res = await page.goto(`${base}/demo/?${query}`);
    assert.equal(res.status(), 200);
    await page.waitForSelector("body[data-ready=true]");
    await page.locator("#region-field:not([hidden])").waitFor();
    await page.locator("#time-window-share-field:not([hidden])").waitFor();
    assert.deepEqual(await page.$$eval("#region option", (os) => os.map((o) => o.value)), ["", "eu"]);
    assert.match(await page.getAttribute("#time-window-share", "placeholder"), /^20\.8% of the week \(peak hours\)$/);

    // Defaults: DeepSeek's share by hours (35/168), Claude on Bedrock's global rates.
    let server = await apiEstimate({ ...workload, model_ids: [DEEPSEEK, CLAUDE] });
    const total = (data, id) => data.estimates.find((r) => r.model_id === id).cost_per_month.total;
    assert.equal(total(server, DEEPSEEK), "10.367500");
    assert.equal(await shownTotal(DEEPSEEK), total(server, DEEPSEEK));
    assert.equal(await shownTotal(CLAUDE), total(server, CLAUDE));

    // The eu zone and every request in peak hours.
    await page.selectOption("#region", "eu");
    await page.fill("#time-window-share", "1");
    server = await apiEstimate({ ...workload, region: "eu", time_window_share: 1, model_ids: [DEEPSEEK, CLAUDE] });
    assert.equal(total(server, DEEPSEEK), "17.160000");
    assert.equal(total(server, CLAUDE), "49.500000"); // 10M x 3.3 + 1M x 16.5
    await page.waitForFunction(
      ([id, want]) => document.querySelector(`#costs tbody tr[data-model-id="${id}"] .total .exact`)?.textContent === want,
      [CLAUDE, total(server, CLAUDE)],
    );
    assert.equal(await shownTotal(DEEPSEEK), total(server, DEEPSEEK));
    assert.equal(await shownTotal(CLAUDE), total(server, CLAUDE));
    const url = new URL(page.url());
    assert.equal(url.searchParams.get("region"), "eu");
    assert.equal(url.searchParams.get("time_window_share"), "1");

    // The page's own check against the server agrees.
    await page.click("#check");
    await page.waitForSelector("#check-status[data-result]");
    assert.equal(await page.getAttribute("#check-status", "data-result"), "identical");

    // A share outside 0..1 is the estimator's error, shown at the field.
    await page.fill("#time-window-share", "1.5");
    await page.locator("#time-window-share-error:not([hidden])").waitFor();
    assert.match(await page.textContent("#time-window-share-error"), /from 0 to 1/);
    await page.fill("#time-window-share", "");

    await assertAccessible(page, "calculator with conditions");
    assert.deepEqual(session.errors, [], "console errors");
    assert.deepEqual(session.outside, []);
  });
});
