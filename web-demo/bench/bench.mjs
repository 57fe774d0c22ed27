// Throughput of the WASM estimator under node, through the exports the pages call:
// `estimate(workload, models)` (JS objects in, JS objects out, money as strings) and
// `estimate_series(workload, models, volumes)` (the calculator's chart: every model at every
// volume in one call, totals back as one string per model).
//
//   bash scripts/build-web-demo.sh && node web-demo/bench/bench.mjs
//
// Same workload and price shapes as the native benchmark (estimator/benches/throughput.rs,
// `cargo bench -p estimator`). The first line includes converting each model row from and to
// JavaScript objects, which the native figure does not have. The core lines are the estimator
// alone inside WASM (the `estimate_repeatedly` export): at the native benchmark's workload, the
// figure that compares with native, and over the series' models and volumes; the series line
// says how close a whole chart through the boundary comes to the latter, the same estimates
// (goal: 2x).

import { existsSync } from "node:fs";
import { createRequire } from "node:module";

const pkg = new URL("../pkg-node/web_demo.js", import.meta.url);
if (!existsSync(pkg)) {
  console.error(`${pkg.pathname} is missing: build it first with bash scripts/build-web-demo.sh`);
  process.exit(1);
}
const wasm = createRequire(import.meta.url)(pkg.pathname);

const workload = { requests_per_month: 250000, preset: "chatbot", cache_hit_rate: "0.333", batch_share: "0.25" };
const shapes = [
  { input: "3", output: "15", cached_input: "0.3", batch_input: "1.5", batch_output: "7.5", batch_cached_input: "0.15" },
  { input: "0.15", output: "0.6", cached_input: "0.075" },
  { input: "2.5", output: "10", batch_input: "1.25", batch_output: "5" },
  { input: "0.0375", output: "0.15" },
  { input: "1.25", output: "10", cached_input: "0.3125" },
  { input: "0.8", output: "4", cached_input: "1.2" },
  { input: "15", output: "75", cached_input: "1.5", batch_input: "7.5", batch_output: "37.5" },
  { input: "0.1", output: "0.4", batch_input: "0.05", batch_output: "0.2" },
];

/** Model-estimates per second with `perCall` models in each call, over at least `seconds`. */
function measure(perCall, seconds) {
  const models = Array.from({ length: perCall }, (_, i) => ({ model_id: `bench:m${i}`, prices: shapes[i % shapes.length] }));
  let sink = 0;
  for (let i = 0; i < 2000; i++) sink += wasm.estimate(workload, models).estimates.length; // warm-up
  let count = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds * 1e9) {
    for (let i = 0; i < 200; i++) sink += wasm.estimate(workload, models).estimates.length;
    count += 200 * perCall;
    elapsed = Number(process.hrtime.bigint() - start);
  }
  if (sink === 0) throw new Error("no estimates");
  return { perSecond: count / (elapsed / 1e9), count, elapsed };
}

/**
 * The estimator alone inside WASM (no JavaScript objects per estimate, nothing rendered): every
 * model of `shapes` at every one of `volumes`, over at least `seconds`.
 */
function measureCore(volumes, seconds) {
  const models = shapes.map((prices, i) => ({ model_id: `bench:m${i}`, prices }));
  // About 80,000 estimates a call, so reading the arguments is a small share of it.
  const passes = Math.max(1, Math.round(10000 / volumes.length));
  wasm.estimate_repeatedly(workload, models, volumes, passes); // warm-up
  let count = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds * 1e9) {
    count += wasm.estimate_repeatedly(workload, models, volumes, passes);
    elapsed = Number(process.hrtime.bigint() - start);
  }
  return { perSecond: count / (elapsed / 1e9), count, elapsed };
}

/** `points` volumes of requests per month from 1e3 to 1e9, evenly spaced on a log scale. */
function chartVolumes(points) {
  const volumes = new Float64Array(points);
  for (let i = 0; i < points; i++) volumes[i] = Math.round(1000 * 10 ** ((6 * i) / (points - 1)));
  return volumes;
}

/**
 * Model-estimates per second through `estimate_series` (a whole chart: `models` x `points`
 * volumes in one call, the totals read back as exact strings and split per point), over at
 * least `seconds`.
 */
function measureSeries(modelCount, volumes, seconds) {
  const models = Array.from({ length: modelCount }, (_, i) => ({ model_id: `bench:m${i}`, prices: shapes[i % shapes.length] }));
  let sink = 0;
  const once = () => {
    for (const series of wasm.estimate_series(workload, models, volumes)) sink += series.totals.split(",").length;
  };
  for (let i = 0; i < 50; i++) once(); // warm-up
  let count = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds * 1e9) {
    for (let i = 0; i < 10; i++) once();
    count += 10 * modelCount * volumes.length;
    elapsed = Number(process.hrtime.bigint() - start);
  }
  if (sink === 0) throw new Error("no estimates");
  return { perSecond: count / (elapsed / 1e9), count, elapsed };
}

// 8 models per call: the page's case (it re-estimates every picked model, at most 10, per change).
const main = measure(8, 1);
const single = measure(1, 0.5);
console.log(
  `wasm (node): ${Math.round(main.perSecond)} model-estimates/s ` +
    `(${main.count} in ${(main.elapsed / 1e9).toFixed(3)} s, ${Math.round(main.elapsed / main.count)} ns each, 8 models per call)`,
);
// The series and the core are compared as a ratio over the same estimates (the chart's 8
// models x 200 volumes: larger volumes make larger decimals, so they cost more than the single
// workload above): measured in alternating rounds, best round of each, so a busy machine slows
// both alike instead of whichever happened to run later.
const volumes = chartVolumes(200);
const single250k = measureCore(new Float64Array([workload.requests_per_month]), 0.5);
let series = { perSecond: 0 };
let core = { perSecond: 0 };
for (let round = 0; round < 5; round++) {
  const s = measureSeries(8, volumes, 0.3);
  const c = measureCore(volumes, 0.3);
  if (s.perSecond > series.perSecond) series = s;
  if (c.perSecond > core.perSecond) core = c;
}
console.log(`wasm (node), 1 model per call: ${Math.round(single.perSecond)} model-estimates/s`);
console.log(
  `wasm (node), estimator core without the JS boundary, ${workload.requests_per_month} requests/month: ` +
    `${Math.round(single250k.perSecond)} model-estimates/s (${Math.round(single250k.elapsed / single250k.count)} ns each)`,
);
console.log(
  `wasm (node), estimator core without the JS boundary, the series' 8 models x 200 volumes: ` +
    `${Math.round(core.perSecond)} model-estimates/s (${Math.round(core.elapsed / core.count)} ns each)`,
);
console.log(
  `wasm (node), series export (8 models x 200 volumes per call, totals rendered and split in JS): ` +
    `${Math.round(series.perSecond)} model-estimates/s ` +
    `(${Math.round(series.elapsed / series.count)} ns each; ${(core.perSecond / series.perSecond).toFixed(2)}x the core's time ` +
    `for the same estimates)`,
);
