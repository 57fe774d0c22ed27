// The shared vectors (estimator/vectors/vectors.json) through the WASM build, under node:
// the same decimal strings as natively (estimator/tests/vectors.rs) and as the server; and the
// series export (the calculator's chart) against single estimates.
//
//   bash scripts/build-web-demo.sh && node --test web-demo/tests/
//
// Loads the wasm-bindgen output for node (web-demo/pkg-node), built from the same .wasm as the
// page's module.

import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, test } from "node:test";

const pkg = new URL("../pkg-node/web_demo.js", import.meta.url);
if (!existsSync(pkg)) {
  throw new Error(`${pkg.pathname} is missing: build it first with bash scripts/build-web-demo.sh`);
}
const wasm = createRequire(import.meta.url)(pkg.pathname);
const vectors = JSON.parse(readFileSync(new URL("../../estimator/vectors/vectors.json", import.meta.url), "utf8"));

/** Runs one vector the way the native test does: {row} or {error}. */
function run(workload, prices) {
  try {
    const out = wasm.estimate(workload, [{ model_id: "vector:model", prices }]);
    return { row: out.estimates[0], out };
  } catch (error) {
    return { error };
  }
}

describe("shared vectors in WASM", () => {
  test("the vector file has at least 12 vectors", () => {
    assert.ok(vectors.length >= 12);
  });

  for (const v of vectors) {
    test(v.name, () => {
      const { row, error } = run(v.workload, v.prices);
      if (v.expected_error) {
        assert.ok(error, `expected an error on ${v.expected_error.field}`);
        assert.equal(error.field, v.expected_error.field);
        assert.equal(error.code, "INVALID_ARGUMENT");
        return;
      }
      assert.ifError(error);
      assert.deepEqual(row.tokens_per_month, v.expected.tokens_per_month);
      assert.deepEqual(row.cost_per_month, v.expected.cost_per_month);
      assert.deepEqual(row.assumptions.map((a) => a.code), v.expected.assumptions);
    });
  }
});

// Rate cards with a region and a time window (estimator/vectors/conditions.json): the same
// totals as natively and as POST /api/v1/estimate on the same published rates
// (tests/api/regional.rs).
const conditions = JSON.parse(readFileSync(new URL("../../estimator/vectors/conditions.json", import.meta.url), "utf8"));

describe("condition vectors in WASM", () => {
  for (const v of conditions) {
    test(v.name, () => {
      const model = { model_id: v.model_id, prices: { input: "0", output: "0" }, rates: v.rates };
      const row = wasm.estimate(v.workload, [model]).estimates[0];
      assert.equal(row.cost_per_month.total, v.expected.total);
      assert.deepEqual(row.assumptions.map((a) => a.code), v.expected.assumptions);
    });
  }
});

describe("the WASM binding", () => {
  test("rates as JS numbers give the same strings as rates as decimal strings", () => {
    for (const v of vectors.filter((v) => v.expected)) {
      const numeric = { ...v.workload };
      for (const rate of ["cache_hit_rate", "batch_share"]) {
        if (rate in numeric) numeric[rate] = Number(numeric[rate]);
      }
      assert.deepEqual(run(numeric, v.prices).row, run(v.workload, v.prices).row, v.name);
    }
  });

  test("JSON text arguments give the same result as objects", () => {
    const v = vectors.find((v) => v.expected);
    const models = [{ model_id: "vector:model", prices: v.prices }];
    assert.deepEqual(
      wasm.estimate(JSON.stringify(v.workload), JSON.stringify(models)),
      wasm.estimate(v.workload, models),
    );
  });

  test("rows keep their own fields and come back cheapest first, ties by model_id", () => {
    const out = wasm.estimate({ requests_per_month: 1000, preset: "chatbot" }, [
      { model_id: "b:dear", name: "Dear", channel: "official", prices: { input: "3", output: "15" } },
      { model_id: "z:cheap", prices: { input: "0.15", output: "0.6" } },
      { model_id: "a:cheap", prices: { input: 0.15, output: 0.6 } },
    ]);
    assert.deepEqual(out.estimates.map((r) => r.model_id), ["a:cheap", "z:cheap", "b:dear"]);
    assert.equal(out.estimates[2].name, "Dear");
    assert.equal(out.estimates[2].channel, "official");
    assert.equal(out.estimates[0].cost_per_month.total, "0.465000");
    assert.equal(out.assumptions.input_tokens_per_request, 1500);
    assert.equal(out.assumptions.notes[0].code, "preset_volumes");
    assert.equal(Object.getPrototypeOf(out), Object.prototype, "plain objects, not Maps");
  });

  test("bad input throws an Error with code, field and a message naming the field", () => {
    const { error } = run({ requests_per_month: 5, preset: "chatbot", cache_hit_rate: 1.5 }, { input: "1", output: "1" });
    assert.ok(error instanceof Error);
    assert.equal(error.code, "INVALID_ARGUMENT");
    assert.equal(error.field, "cache_hit_rate");
    assert.match(error.message, /`cache_hit_rate` must be a number from 0 to 1; got 1.5/);

    const unreadable = run({ requests_per_month: 5, preset: "poetry" }, { input: "1", output: "1" }).error;
    assert.equal(unreadable.code, "VALIDATION_FAILED");
    assert.equal(unreadable.field, "workload");
    assert.match(unreadable.message, /poetry/);

    assert.throws(() => wasm.estimate({ requests_per_month: 1, preset: "chatbot" }, [{ prices: { input: "x", output: "1" } }]),
      (e) => e.code === "VALIDATION_FAILED" && e.field === "models");
  });

  test("the series export gives, at every volume, the total of a single estimate", () => {
    const volumes = [1, 37, 25000, 1e6, 123456789];
    for (const v of vectors.filter((v) => v.expected)) {
      const models = [
        { model_id: "vector:model", prices: v.prices },
        { model_id: "other:model", prices: { input: "0.15", output: "0.6", cached_input: "0.075" } },
      ];
      const series = wasm.estimate_series(v.workload, models, new Float64Array(volumes));
      assert.deepEqual(series.map((s) => s.model_id), ["vector:model", "other:model"], v.name);
      for (const [m, s] of series.entries()) {
        const totals = s.totals.split(",");
        assert.equal(totals.length, volumes.length, v.name);
        volumes.forEach((requests, i) => {
          const one = wasm.estimate({ ...v.workload, requests_per_month: requests }, [models[m]]).estimates[0];
          assert.equal(totals[i], one.cost_per_month.total, `${v.name}, ${s.model_id} at ${requests}`);
        });
      }
    }
  });

  test("the series export names a bad volume", () => {
    assert.throws(
      () => wasm.estimate_series({ requests_per_month: 1, preset: "chatbot" }, [{ prices: { input: "1", output: "1" } }], [10, 2.5]),
      (e) => e.code === "INVALID_ARGUMENT" && e.field === "volumes[1]" && /whole number/.test(e.message),
    );
  });

  test("presets list every preset with its volumes", () => {
    const presets = wasm.presets();
    assert.equal(presets.length, 7);
    assert.deepEqual(presets[0], {
      name: "chatbot",
      input_tokens_per_request: 1500,
      output_tokens_per_request: 400,
      description: presets[0].description,
    });
    assert.ok(presets.every((p) => p.description.length > 10));
  });
});
