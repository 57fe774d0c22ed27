//! The per-model report of an estimate: what `POST /api/v1/estimate` answers under `data` and
//! what the browser calculator shows, built here once for both.
//!
//! Each model comes with its own fields (`model_id`, `name`, `channel`, ...) and its `prices`;
//! its row is those fields plus `tokens_per_month`, `cost_per_month`, `applied_prices` and
//! `assumptions`, ordered by exact total cost and then by `model_id`. So a row of an answer can
//! be fed back in unchanged and gives the same decimal strings.

use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::assumption::Assumption;
use crate::estimate::{CostEstimate, EstimateError, estimate, sort_by_total_cost};
use crate::prices::ModelPrices;
use crate::rates::{Conditions, RateCard, Served, When};
use crate::workload::ResolvedWorkload;

/// One model to estimate: its prices (USD per 1M tokens, as an estimate's answer reports them
/// under `prices`), optionally its whole rate card, and any other fields, which are echoed back
/// untouched.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct ModelInput {
    /// The estimator's input when no rate card is given.
    pub prices: ModelPrices,
    /// Every rate with its condition (context thresholds, cache-write TTLs, service tiers): when
    /// given, the prices billed are chosen from it for the workload ([`RateCard::select`]) and
    /// `prices` is replaced by them.
    #[serde(default)]
    pub rates: Option<RateCard>,
    /// Everything else the model came with (`model_id`, `name`, `channel`, ...).
    #[serde(flatten)]
    pub fields: Map<String, Value>,
}

impl ModelInput {
    /// The model's `model_id` field, or `""` without one.
    pub fn model_id(&self) -> &str {
        model_id(&self.fields)
    }

    /// The prices `workload` is billed at on this model, and the conditions chosen when the
    /// model came with a rate card.
    ///
    /// On a card with time-windowed rates, a share `s` of the requests (`time_window_share`,
    /// else the share of the week's hours the windows cover) is billed at the windows' rates and
    /// the rest at the others: each price is `outside + (inside - outside) × s`, so the bill is
    /// exactly the share-weighted sum of the two bills (and either pure bill at 0 and 1).
    pub fn prices_for(&self, workload: &ResolvedWorkload) -> (ModelPrices, Option<Conditions>) {
        let Some(card) = &self.rates else {
            return (self.prices, None);
        };
        let select = |when| {
            card.select(
                workload.input_tokens_per_request(),
                workload.service_tier(),
                workload.cache_ttl(),
                Served {
                    region: workload.region(),
                    when,
                },
            )
        };
        let outside = select(When::Unknown);
        let Some(prices) = outside.prices() else {
            return (self.prices, None);
        };
        let Some(by_hours) = card.time_window_hours_share() else {
            return (prices, Some(outside.conditions));
        };
        let inside = select(When::InWindow);
        let share = workload.time_window_share().unwrap_or(by_hours);
        let blended = inside
            .prices()
            .map_or(prices, |windowed| blend(&prices, &windowed, share));
        let conditions = Conditions {
            time_window: inside.conditions.time_window,
            time_window_share: Some(share),
            share_by_hours: workload.time_window_share().is_none(),
            promotional: outside.conditions.promotional || inside.conditions.promotional,
            ..outside.conditions
        };
        (blended, Some(conditions))
    }

    /// Estimates `workload` on this model, the model being number `index` of its list.
    pub fn estimate(
        &self,
        index: usize,
        workload: &ResolvedWorkload,
    ) -> Result<(ModelPrices, Option<Conditions>, CostEstimate), UnpriceableModel> {
        let (prices, conditions) = self.prices_for(workload);
        let mut cost = estimate(workload, &prices).map_err(|error| UnpriceableModel {
            index,
            model_id: self.model_id().to_owned(),
            error,
        })?;
        if let Some(c) = conditions {
            cost.assumptions
                .add_if(c.above_input_tokens.is_some(), Assumption::ContextTierRates);
            cost.assumptions
                .add_if(c.service_tier_missing, Assumption::NoServiceTierPrice);
            cost.assumptions
                .add_if(c.promotional, Assumption::PromotionalRate);
            cost.assumptions
                .add_if(c.region_missing, Assumption::NoRegionPrice);
            cost.assumptions
                .add_if(c.share_by_hours, Assumption::TimeWindowShareByHours);
        }
        Ok((prices, conditions, cost))
    }
}

/// The report of [`estimate_models`]: `data` of an estimate's answer, less the server's own
/// facts (price rule, publish date, currency).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Estimates {
    /// The workload as estimated (its preset note under `notes`).
    pub assumptions: ResolvedWorkload,
    /// One row per model, cheapest first, equal totals by `model_id`.
    pub estimates: Vec<EstimateRow>,
}

/// A model's own fields, its prices, and its estimate (`tokens_per_month`, `cost_per_month`,
/// `applied_prices`, `assumptions`) side by side in one object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct EstimateRow {
    /// The fields the model came with.
    #[serde(flatten)]
    pub fields: Map<String, Value>,
    /// The prices estimated with.
    pub prices: ModelPrices,
    /// The conditions the prices were chosen under, when the model came with a rate card.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Conditions>,
    /// The rate card, echoed so that the row fed back in is billed by the same rule for any
    /// other workload (the browser calculator re-estimates rows of an answer).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rates: Option<RateCard>,
    /// The estimate.
    #[serde(flatten)]
    pub estimate: CostEstimate,
}

/// Fields of a row that are computed here, so never echoed from the input (a row of an answer
/// can be passed back in as it is).
const COMPUTED: [&str; 5] = [
    "tokens_per_month",
    "cost_per_month",
    "applied_prices",
    "assumptions",
    "conditions",
];

/// Estimates `workload` on every model: the rows of an estimate's answer.
pub fn estimate_models(
    workload: &ResolvedWorkload,
    models: Vec<ModelInput>,
) -> Result<Estimates, UnpriceableModel> {
    let mut rows = Vec::with_capacity(models.len());
    for (index, mut model) in models.into_iter().enumerate() {
        let (prices, conditions, cost) = model.estimate(index, workload)?;
        for key in COMPUTED {
            model.fields.remove(key);
        }
        rows.push(EstimateRow {
            fields: model.fields,
            prices,
            conditions,
            rates: model.rates,
            estimate: cost,
        });
    }
    sort_by_total_cost(&mut rows, |row| &row.estimate, |row| model_id(&row.fields));
    Ok(Estimates {
        assumptions: *workload,
        estimates: rows,
    })
}

/// `outside`'s prices moved by `share` towards `inside`'s, field by field (a field either lacks
/// keeps `outside`'s).
fn blend(outside: &ModelPrices, inside: &ModelPrices, share: Decimal) -> ModelPrices {
    let mix = |o: Decimal, i: Decimal| o + (i - o) * share;
    let opt = |o: Option<Decimal>, i: Option<Decimal>| match (o, i) {
        (Some(o), Some(i)) => Some(mix(o, i)),
        (o, _) => o,
    };
    ModelPrices {
        input: mix(outside.input, inside.input),
        output: opt(outside.output, inside.output),
        cached_input: opt(outside.cached_input, inside.cached_input),
        cache_write: opt(outside.cache_write, inside.cache_write),
        batch_input: opt(outside.batch_input, inside.batch_input),
        batch_output: opt(outside.batch_output, inside.batch_output),
        batch_cached_input: opt(outside.batch_cached_input, inside.batch_cached_input),
        batch_cache_write: opt(outside.batch_cache_write, inside.batch_cache_write),
    }
}

fn model_id(fields: &Map<String, Value>) -> &str {
    fields.get("model_id").and_then(Value::as_str).unwrap_or("")
}

/// A model the workload cannot be priced on: a negative price, or a cost beyond the decimal
/// range.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnpriceableModel {
    /// The model's position in the list given.
    pub index: usize,
    /// The model's `model_id`.
    pub model_id: String,
    /// Why it cannot be priced.
    pub error: EstimateError,
}

impl UnpriceableModel {
    /// The input to blame: `models[i].prices.<price>` for a negative price, else
    /// `requests_per_month` (the volume that made the cost too large).
    pub fn field(&self) -> String {
        match self.error {
            EstimateError::NegativePrice { field, .. } => {
                format!("models[{}].prices.{field}", self.index)
            }
            EstimateError::CostOverflow => "requests_per_month".to_owned(),
        }
    }
}

impl fmt::Display for UnpriceableModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "the workload cannot be priced for {}: {}",
            self.model_id, self.error
        )
    }
}

impl std::error::Error for UnpriceableModel {}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Preset, Workload};

    fn models(json: Value) -> Vec<ModelInput> {
        serde_json::from_value(json).expect("model rows")
    }

    fn report(workload: Workload, rows: Value) -> Value {
        let workload = workload.validate().expect("valid workload");
        let out = estimate_models(&workload, models(rows)).expect("estimates");
        serde_json::to_value(out).expect("serializes")
    }

    #[test]
    fn a_rate_card_chooses_the_prices_and_a_row_fed_back_is_billed_the_same() {
        // Gemini 2.5 Pro's card: 1.25 / 10, above 200,000 input tokens 2.5 / 15.
        let rows = json!([{"model_id": "google:gemini-2.5-pro",
        "prices": {"input": "1.25", "output": "10"},
        "rates": [
            {"component": "input", "tier": "standard", "usd_per_1m": "1.25"},
            {"component": "input", "tier": "standard", "above_input_tokens": 200000, "usd_per_1m": "2.5"},
            {"component": "output", "tier": "standard", "usd_per_1m": "10"},
            {"component": "output", "tier": "standard", "above_input_tokens": 200000, "usd_per_1m": "15"},
        ]}]);
        let big = Workload::from_volumes(1000, 300_000, 1000);
        let out = report(big, rows);
        let row = &out["estimates"][0];
        assert_eq!(row["prices"]["input"], "2.5");
        assert_eq!(row["conditions"]["above_input_tokens"], 200_000);
        assert_eq!(row["cost_per_month"]["total"], "765.000000");
        assert_eq!(row["assumptions"][0]["code"], "context_tier_rates");
        // The row as answered, sent back with a smaller workload: the card, not the chosen
        // prices, decides.
        let again = report(
            Workload::from_volumes(1000, 100_000, 1000),
            json!([row.clone()]),
        );
        assert_eq!(
            again["estimates"][0]["cost_per_month"]["total"],
            "135.000000"
        );
        assert_eq!(
            again["estimates"][0]["conditions"]["above_input_tokens"],
            Value::Null
        );
    }

    #[test]
    fn rows_come_back_cheapest_first_with_their_own_fields() {
        let out = report(
            Workload::from_preset(1000, Preset::Chatbot),
            json!([
                {"model_id": "b:dear", "name": "Dear", "prices": {"input": "3", "output": "15"}},
                {"model_id": "a:cheap", "channel": "official", "prices": {"input": 0.15, "output": "0.6"}},
            ]),
        );
        let rows = out["estimates"].as_array().expect("rows");
        assert_eq!(rows[0]["model_id"], "a:cheap");
        assert_eq!(rows[0]["channel"], "official");
        assert_eq!(rows[0]["prices"], json!({"input": "0.15", "output": "0.6"}));
        // 1.5M input × $0.15 + 0.4M output × $0.60
        assert_eq!(rows[0]["cost_per_month"]["total"], "0.465000");
        assert_eq!(rows[1]["name"], "Dear");
        assert_eq!(rows[1]["cost_per_month"]["total"], "10.500000");
        assert_eq!(out["assumptions"]["input_tokens_per_request"], 1500);
        assert_eq!(out["assumptions"]["notes"][0]["code"], "preset_volumes");
    }

    #[test]
    fn a_row_passed_back_in_is_recomputed_not_echoed() {
        let row = json!({
            "model_id": "a:a",
            "prices": {"input": "2", "output": "4"},
            "cost_per_month": {"total": "999"},
            "assumptions": [{"code": "no_batch_price"}],
        });
        let out = report(Workload::from_volumes(1_000_000, 1, 1), json!([row]));
        assert_eq!(out["estimates"][0]["cost_per_month"]["total"], "6.000000");
        assert_eq!(out["estimates"][0]["assumptions"], json!([]));
    }

    #[test]
    fn equal_totals_are_ordered_by_model_id() {
        let same = json!({"input": "1", "output": "1"});
        let out = report(
            Workload::from_volumes(1, 1, 1),
            json!([
                {"model_id": "z:z", "prices": same},
                {"model_id": "m:m", "prices": same},
            ]),
        );
        assert_eq!(out["estimates"][0]["model_id"], "m:m");
        assert_eq!(out["estimates"][1]["model_id"], "z:z");
    }

    #[test]
    fn a_negative_price_names_the_model_row() {
        let workload = Workload::from_volumes(1, 1, 1).validate().expect("valid");
        let err = estimate_models(
            &workload,
            models(json!([
                {"model_id": "ok:ok", "prices": {"input": "1", "output": "1"}},
                {"model_id": "bad:bad", "prices": {"input": "1", "output": "-2"}},
            ])),
        )
        .expect_err("negative");
        assert_eq!(err.field(), "models[1].prices.output");
        assert_eq!(
            err.to_string(),
            "the workload cannot be priced for bad:bad: price `output` must be >= 0 USD per 1M \
             tokens, got -2"
        );
    }
}
