//! One model's published prices, the input of an estimate: a value type with no
//! rule of its own, shared by the rate card (`rates.rs`, which selects them) and
//! the estimate (`estimate.rs`, which bills a workload at them).

use std::fmt;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::money::serde_helpers;

/// One model's prices in USD per 1M tokens, as published.
///
/// Decimals deserialize from strings or JSON numbers and serialize as strings; absent optional
/// prices are left out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ModelPrices {
    /// Standard input price.
    #[serde(deserialize_with = "serde_helpers::decimal")]
    pub input: Decimal,
    /// Standard output price; `None` for a model that returns no output tokens (an embedding or
    /// rerank model, billed for input only): no output is billed.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub output: Option<Decimal>,
    /// Price of input tokens served from the prompt cache, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub cached_input: Option<Decimal>,
    /// Price of input tokens written into the prompt cache, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub cache_write: Option<Decimal>,
    /// Batch API input price, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_input: Option<Decimal>,
    /// Batch API output price, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_output: Option<Decimal>,
    /// Batch API price of cached input tokens, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_cached_input: Option<Decimal>,
    /// Batch API price of cache writes, if published.
    #[serde(
        default,
        deserialize_with = "serde_helpers::optional_decimal",
        skip_serializing_if = "Option::is_none"
    )]
    pub batch_cache_write: Option<Decimal>,
}

impl ModelPrices {
    /// Standard prices only; no cached-input or batch prices.
    pub const fn new(input: Decimal, output: Decimal) -> Self {
        ModelPrices {
            output: Some(output),
            ..Self::input_only(input)
        }
    }

    /// An input price only: a model that returns no output tokens (an embedding or rerank
    /// model).
    pub const fn input_only(input: Decimal) -> Self {
        ModelPrices {
            input,
            output: None,
            cached_input: None,
            cache_write: None,
            batch_input: None,
            batch_output: None,
            batch_cached_input: None,
            batch_cache_write: None,
        }
    }

    /// The same prices with a cached-input price.
    pub const fn with_cached_input(mut self, cached_input: Decimal) -> Self {
        self.cached_input = Some(cached_input);
        self
    }

    /// The same prices with batch input and output prices.
    pub const fn with_batch(mut self, batch_input: Decimal, batch_output: Decimal) -> Self {
        self.batch_input = Some(batch_input);
        self.batch_output = Some(batch_output);
        self
    }

    /// The same prices with a batch cached-input price.
    pub const fn with_batch_cached_input(mut self, batch_cached_input: Decimal) -> Self {
        self.batch_cached_input = Some(batch_cached_input);
        self
    }

    /// Every price with its field, in the order a negative one is reported.
    pub(crate) fn fields(&self) -> [(PriceField, Option<Decimal>); 8] {
        [
            (PriceField::Input, Some(self.input)),
            (PriceField::Output, self.output),
            (PriceField::CachedInput, self.cached_input),
            (PriceField::BatchInput, self.batch_input),
            (PriceField::BatchOutput, self.batch_output),
            (PriceField::BatchCachedInput, self.batch_cached_input),
            (PriceField::CacheWrite, self.cache_write),
            (PriceField::BatchCacheWrite, self.batch_cache_write),
        ]
    }
}

/// A price field of [`ModelPrices`], named as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PriceField {
    /// `input`
    Input,
    /// `output`
    Output,
    /// `cached_input`
    CachedInput,
    /// `batch_input`
    BatchInput,
    /// `batch_output`
    BatchOutput,
    /// `batch_cached_input`
    BatchCachedInput,
    /// `cache_write`
    CacheWrite,
    /// `batch_cache_write`
    BatchCacheWrite,
}

impl PriceField {
    /// The field's wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            PriceField::Input => "input",
            PriceField::Output => "output",
            PriceField::CachedInput => "cached_input",
            PriceField::BatchInput => "batch_input",
            PriceField::BatchOutput => "batch_output",
            PriceField::BatchCachedInput => "batch_cached_input",
            PriceField::CacheWrite => "cache_write",
            PriceField::BatchCacheWrite => "batch_cache_write",
        }
    }
}

impl fmt::Display for PriceField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
