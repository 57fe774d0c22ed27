// What the browser tests share: a real `pricing serve` on a fresh embedded database (the bundled
// dataset) and a free port, Debian's chromium driven by playwright-core, and the checks every
// page gets: nothing requested from another host, no console error, no serious accessibility
// violation (axe-core), screenshots at desktop and phone widths in tests/artifacts/.
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

export const root = new URL("../../", import.meta.url).pathname;
const bin = process.env.PRICING_BIN || join(root, "target/debug/pricing");
const chromiumPath = process.env.CHROMIUM || "/usr/bin/chromium";
const demoDir = process.env.PRICING_DEMO_DIR || join(root, "web-demo/dist");
export const artifacts = join(root, "tests/artifacts");

for (const [path, fix] of [
  [join(demoDir, "index.html"), "bash scripts/build-web-demo.sh"],
  [join(demoDir, "vendor/uPlot.esm.js"), "bash scripts/build-web-demo.sh"],
  [bin, "cargo build --bin pricing"],
  [chromiumPath, "apt-get install -y chromium"],
  [join(root, "web-demo/node_modules/playwright-core"), "cd web-demo && npm ci"],
  [join(root, "web-demo/node_modules/axe-core"), "cd web-demo && npm ci"],
]) {
  if (!existsSync(path)) throw new Error(`${path} is missing: ${fix}`);
}
const requireFromDemo = createRequire(join(root, "web-demo/package.json"));
const { chromium } = requireFromDemo("playwright-core");
const axeSource = readFileSync(requireFromDemo.resolve("axe-core/axe.min.js"), "utf8");

const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** The browser's console message for a resource answered 429 (the burst limit). */
const BURST_429 = /^Failed to load resource: the server responded with a status of 429 /;

export const DESKTOP = { width: 1360, height: 900 };
export const PHONE = { width: 390, height: 844 };

/**
 * Runs `pricing ARGS --data-dir DIR` to its end (beside a server on that data dir, it uses the
 * server's cluster); rejects with the tail of its log when it fails.
 */
function runPricing(args, dataDir) {
  const child = spawn(bin, [...args, "--data-dir", dataDir], { stdio: ["ignore", "ignore", "pipe"] });
  const tail = [];
  createInterface({ input: child.stderr }).on("line", (line) => {
    tail.push(line);
    if (tail.length > 40) tail.shift();
  });
  return new Promise((resolve, reject) => {
    child.on("exit", (code) => (code === 0 ? resolve() : reject(new Error(`pricing ${args.join(" ")} exited (${code}):\n${tail.join("\n")}`))));
  });
}

/**
 * Starts `pricing serve` on a free port; resolves with {base, child, requests} once it serves.
 * `requests` fills with the server's access log as it goes: one {method, path, query, status,
 * caller} per request.
 */
export function startServer(dataDir) {
  const child = spawn(
    bin,
    ["--log-format", "json", "serve", "--data-dir", dataDir, "--listen", "127.0.0.1:0", "--demo-dir", demoDir],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  const tail = [];
  const requests = [];
  let timer;
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stderr });
    lines.on("line", (line) => {
      tail.push(line);
      if (tail.length > 40) tail.shift();
      try {
        const event = JSON.parse(line);
        const fields = event.fields || {};
        if (fields.message === "request") {
          const { method, path, query, status, caller } = fields;
          requests.push({ method, path, query, status, caller });
        }
        if (fields.message === "serving" && fields.addr) {
          clearTimeout(timer);
          resolve({ base: `http://${fields.addr}`, child, requests });
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

export function stopServer(child) {
  if (!child || child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once("exit", resolve);
    child.kill("SIGTERM"); // the server stops its embedded PostgreSQL on the way out
  });
}

/**
 * A server on a fresh embedded database (the bundled dataset, or the snapshot file `snapshot`
 * published first) and a chromium with an empty profile. Every request
 * the browser makes to another host, and every console error and page error, is recorded in
 * `outside` and `errors`; the server's access log in `requests`. `pricing(args)` runs a command
 * on the server's data dir while it serves. `close()` stops both and removes their directories.
 */
export async function startSession({ snapshot } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), "pricing-browser-data-"));
  chmodSync(dataDir, 0o755); // as root, the embedded PostgreSQL runs as another user
  const profileDir = mkdtempSync(join(tmpdir(), "pricing-browser-profile-"));
  const session = { outside: [], errors: [], base: null, server: null, context: null, requests: [] };
  session.close = async () => {
    if (session.context) await session.context.close();
    await stopServer(session.server);
    for (const dir of [dataDir, profileDir]) rmSync(dir, { recursive: true, force: true });
  };
  try {
    session.pricing = (args) => runPricing(args, join(dataDir, "embedded"));
    if (snapshot) await session.pricing(["publish", snapshot]);
    ({ base: session.base, child: session.server, requests: session.requests } = await startServer(join(dataDir, "embedded")));
    session.context = await chromium.launchPersistentContext(profileDir, {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_FLAGS,
      viewport: DESKTOP,
    });
  } catch (err) {
    await session.close();
    throw err;
  }
  session.context.on("request", (req) => {
    const url = req.url();
    if (!url.startsWith(session.base) && !url.startsWith("data:")) session.outside.push(url);
  });
  const watch = (page) => {
    page.on("console", (msg) => {
      // A burst-limit 429 is an answer the pages wait out and retry (web-demo/www/api.js); the
      // browser still logs the failed load. On a loaded machine the pacing's timing can slip into
      // one, so it is no page error: what the page shows is checked by each test.
      if (msg.type() === "error" && !BURST_429.test(msg.text())) session.errors.push(`${page.url()}: ${msg.text()}`);
    });
    page.on("pageerror", (err) => session.errors.push(`${page.url()}: ${err.message}`));
  };
  session.context.pages().forEach(watch);
  session.context.on("page", watch);
  session.page = session.context.pages()[0] || (await session.context.newPage());
  return session;
}

/**
 * POST /api/v1/estimate on the server at `base` as an anonymous client, like the page (waiting
 * out a burst 429): its `data`.
 */
export async function apiEstimate(base, body) {
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

/** Runs axe-core in the page; fails on any serious or critical violation. */
export async function assertAccessible(page, name) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(" ")).slice(0, 5) }));
  });
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(serious, [], `${name}: axe-core violations:\n${JSON.stringify(serious, null, 2)}`);
}

/**
 * Saves `<name>-desktop.png` and `<name>-phone.png` (full page) in tests/artifacts/ and checks
 * that at phone width nothing makes the page itself scroll sideways (wide tables scroll inside
 * their own box). Leaves the page at desktop width.
 */
export async function screenshots(page, name) {
  mkdirSync(artifacts, { recursive: true });
  await page.setViewportSize(DESKTOP);
  await page.waitForFunction(() => [...document.querySelectorAll(".chart")].every((box) => !box.chart || Math.abs(box.chart.width - Math.max(280, box.clientWidth)) <= 1));
  await page.screenshot({ path: join(artifacts, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  // Charts follow their box's width a frame after the resize: wait (bounded) for the page to fit.
  await page
    .waitForFunction(() => document.documentElement.scrollWidth - document.documentElement.clientWidth <= 1, null, { timeout: 5000 })
    .catch(() => {});
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `${name}: the page is ${overflow}px wider than a phone screen`);
  await page.screenshot({ path: join(artifacts, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(DESKTOP);
}
