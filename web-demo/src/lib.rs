//! The browser calculator's WASM binding over the `estimator` crate.
//!
//! A thin layer: each export converts its JavaScript arguments into the estimator's serde types
//! (with `serde-wasm-bindgen`, or `serde_json` when given JSON text), calls [`calc`], and
//! converts the answer back into plain JavaScript objects; every failure leaves through
//! [`into_error`]. `JsValue` stops here and never reaches the estimator.
//!
//! Built for `wasm32-unknown-unknown` by `scripts/build-web-demo.sh`; it also builds natively,
//! where [`calc`] is tested (the exports need a JavaScript host, so they are tested under node
//! by `web-demo/tests/vectors.test.mjs` and in the browser by `tests/browser/`).

pub mod calc;

use serde::Serialize;
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;

use calc::CalcError;
use estimator::{ModelInput, Workload};

/// Estimates a workload for each model, as `POST /api/v1/estimate` does for its body.
///
/// `workload`: the estimate body without `model_ids` (`requests_per_month`, `preset` or token
/// volumes, `cache_hit_rate`, `batch_share`), as an object or as JSON text; rates may be
/// decimal strings (exact) or numbers (read through their shortest text).
/// `models`: an array of `{prices: {input, output, cached_input?, batch_input?, batch_output?,
/// batch_cached_input?}, ...}` (a row of the server's `estimates` works as is), or JSON text.
///
/// Returns `{assumptions: {...}, estimates: [...]}` with money as six-decimal strings, cheapest
/// first. Throws an `Error` with `code`, `message` and `field` on bad input.
#[wasm_bindgen]
pub fn estimate(workload: JsValue, models: JsValue) -> Result<JsValue, JsValue> {
    let workload: Workload = from_js("workload", workload).map_err(into_error)?;
    let models: Vec<ModelInput> = from_js("models", models).map_err(into_error)?;
    let result = calc::estimate_models(&workload, models).map_err(into_error)?;
    to_js(&result)
}

/// The total monthly cost of every model at every volume of requests per month, the rest of the
/// workload held: the calculator's chart in one call, so the JavaScript boundary is crossed once
/// per series rather than once per point.
///
/// `workload` and `models` as for [`estimate`] (`requests_per_month` is replaced by each volume);
/// `volumes`: a `Float64Array` (or array) of whole numbers from 1 to 2^53 - 1.
///
/// Returns `[{model_id, totals}]` in the order of `models`, `totals` being the six-decimal
/// totals at each volume joined by commas. Throws like [`estimate`]; a bad volume names
/// `volumes[i]`.
#[wasm_bindgen]
pub fn estimate_series(
    workload: JsValue,
    models: JsValue,
    volumes: Vec<f64>,
) -> Result<JsValue, JsValue> {
    let workload: Workload = from_js("workload", workload).map_err(into_error)?;
    let models: Vec<ModelInput> = from_js("models", models).map_err(into_error)?;
    let volumes = calc::volumes_from_numbers(&volumes).map_err(into_error)?;
    let series = calc::estimate_series(&workload, &models, &volumes).map_err(into_error)?;
    to_js(&series)
}

/// The task presets: `[{name, input_tokens_per_request, output_tokens_per_request,
/// description}]`.
#[wasm_bindgen]
pub fn presets() -> Result<JsValue, JsValue> {
    to_js(&calc::presets())
}

/// Estimates every model at every volume `passes` times inside WASM and returns how many
/// estimates were made: the estimates of [`estimate_series`] without the JavaScript boundary
/// and without rendering, the figure `web-demo/bench/bench.mjs` measures the series against.
#[wasm_bindgen]
pub fn estimate_repeatedly(
    workload: JsValue,
    models: JsValue,
    volumes: Vec<f64>,
    passes: u32,
) -> Result<u32, JsValue> {
    let workload: Workload = from_js("workload", workload).map_err(into_error)?;
    let models: Vec<ModelInput> = from_js("models", models).map_err(into_error)?;
    let volumes = calc::volumes_from_numbers(&volumes).map_err(into_error)?;
    calc::estimate_repeatedly(&workload, &models, &volumes, passes).map_err(into_error)
}

/// The version of the estimator this binding was built with.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").to_owned()
}

/// Reads an argument given either as a JavaScript value or as JSON text.
fn from_js<T: DeserializeOwned>(what: &str, value: JsValue) -> Result<T, CalcError> {
    match value.as_string() {
        Some(text) => serde_json::from_str(&text).map_err(|e| CalcError::unreadable(what, e)),
        None => serde_wasm_bindgen::from_value(value).map_err(|e| CalcError::unreadable(what, e)),
    }
}

/// Plain objects and arrays (not `Map`s), as `JSON.parse` would give.
fn to_js(value: &impl Serialize) -> Result<JsValue, JsValue> {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .map_err(|e| into_error(CalcError::unreadable("result", e)))
}

/// The one way errors cross into JavaScript: an `Error` whose message is the calculator's,
/// carrying `code` and `field` like the server's error object.
fn into_error(err: CalcError) -> JsValue {
    let error = js_sys::Error::new(&err.message);
    error.set_name("EstimateError");
    let field = err.field.map_or(JsValue::NULL, |f| JsValue::from_str(&f));
    // Setting a property on a fresh Error object cannot fail.
    let _ = js_sys::Reflect::set(&error, &"code".into(), &err.code.into());
    let _ = js_sys::Reflect::set(&error, &"field".into(), &field);
    error.into()
}
