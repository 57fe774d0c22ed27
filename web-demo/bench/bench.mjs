// Throughput of the WASM estimator under node, through the export the page calls
// (`estimate(workload, models)`: JS objects in, JS objects out, money as strings).
//
//   bash scripts/build-web-demo.sh && node web-demo/bench/bench.mjs
//
// Same workload and price shapes as the native benchmark (estimator/benches/throughput.rs,
// `cargo bench -p estimator`). The first line includes converting each model row from and to
// JavaScript objects, which the native figure does not have; the last line is the estimator
// alone inside WASM (the `estimate_repeatedly` export), the figure that compares with native.

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

/** The estimator alone inside WASM (no JavaScript objects per estimate), over at least `seconds`. */
function measureCore(seconds) {
  const models = shapes.map((prices, i) => ({ model_id: `bench:m${i}`, prices }));
  wasm.estimate_repeatedly(workload, models, 10000); // warm-up
  let count = 0;
  const start = process.hrtime.bigint();
  let elapsed = 0;
  while (elapsed < seconds * 1e9) {
    count += wasm.estimate_repeatedly(workload, models, 10000);
    elapsed = Number(process.hrtime.bigint() - start);
  }
  return { perSecond: count / (elapsed / 1e9), count, elapsed };
}

// 8 models per call: the page's case (it re-estimates every picked model, at most 10, per change).
const main = measure(8, 1);
const single = measure(1, 0.5);
console.log(
  `wasm (node): ${Math.round(main.perSecond)} model-estimates/s ` +
    `(${main.count} in ${(main.elapsed / 1e9).toFixed(3)} s, ${Math.round(main.elapsed / main.count)} ns each, 8 models per call)`,
);
const core = measureCore(1);
console.log(`wasm (node), 1 model per call: ${Math.round(single.perSecond)} model-estimates/s`);
console.log(
  `wasm (node), estimator core without the JS boundary: ${Math.round(core.perSecond)} model-estimates/s ` +
    `(${Math.round(core.elapsed / core.count)} ns each)`,
);
