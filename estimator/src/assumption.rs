//! Assumptions: what an estimate took for granted, as codes with human text.
//!
//! An estimate never invents a price. Where a model lacks a cached-input or batch price, or its
//! data would make caching or batch dearer than standard traffic, the estimator falls back to a
//! published price and records the fallback here. The set is a small `Copy` value (one optional
//! workload assumption plus bit flags), so estimating allocates nothing; text is produced only
//! when an assumption is displayed or serialized.

use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeStruct, Serializer};
use serde::{Deserialize, Serialize};

use crate::preset::Preset;

/// One assumption behind an estimate.
///
/// Serialized as `{"code": "...", "text": "..."}`, plus `"preset"` for the preset variants. The
/// code is stable and meant for programs; the text is for people and may be reworded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Assumption {
    /// Both token volumes per request come from the preset (`preset_volumes`).
    PresetVolumes(Preset),
    /// The input volume comes from the preset, the output volume was given
    /// (`preset_input_volume`).
    PresetInputVolume(Preset),
    /// The output volume comes from the preset, the input volume was given
    /// (`preset_output_volume`).
    PresetOutputVolume(Preset),
    /// A preset was named but both volumes were given, so it was not used (`preset_ignored`).
    PresetIgnored(Preset),
    /// No cached-input price: cached input tokens billed at the input price
    /// (`no_cached_input_price`).
    NoCachedInputPrice,
    /// The cached-input price exceeds the input price: cached input tokens billed at the input
    /// price (`cached_input_price_capped`).
    CachedInputPriceCapped,
    /// No batch prices at all: the batch share billed at standard prices (`no_batch_price`).
    NoBatchPrice,
    /// No batch input price: batch input tokens billed at the input price
    /// (`no_batch_input_price`).
    NoBatchInputPrice,
    /// No batch output price: batch output tokens billed at the output price
    /// (`no_batch_output_price`).
    NoBatchOutputPrice,
    /// The batch input price exceeds the input price: billed at the input price
    /// (`batch_input_price_capped`).
    BatchInputPriceCapped,
    /// The batch output price exceeds the output price: billed at the output price
    /// (`batch_output_price_capped`).
    BatchOutputPriceCapped,
    /// No batch cached-input price: cached input tokens of the batch share billed at the lower of
    /// the effective cached-input and batch input prices (`no_batch_cached_input_price`).
    NoBatchCachedInputPrice,
    /// The batch cached-input price exceeds the effective cached-input or batch input price:
    /// billed at the lower of those (`batch_cached_input_price_capped`).
    BatchCachedInputPriceCapped,
    /// No cache-write price: tokens written into the cache billed at the input price
    /// (`no_cache_write_price`).
    NoCacheWritePrice,
    /// No batch cache-write price: cache writes of the batch share billed at the cache-write
    /// price (`no_batch_cache_write_price`).
    NoBatchCacheWritePrice,
    /// The batch cache-write price exceeds the cache-write price: billed at the cache-write price
    /// (`batch_cache_write_price_capped`).
    BatchCacheWritePriceCapped,
    /// The input tokens per request exceed a context threshold of the model: every token of the
    /// request billed at that threshold's rates (`context_tier_rates`; the threshold is the row's
    /// `conditions.above_input_tokens`).
    ContextTierRates,
    /// The service tier asked for has no published rates on the model's channel: the non-batch
    /// share billed at standard rates (`no_service_tier_price`).
    NoServiceTierPrice,
    /// A rate picked for the model is promotional: the cost holds until the promotion ends
    /// (`promotional_rate`; the row's `rates[].promotion.until`).
    PromotionalRate,
    /// The region asked for has no rate on the model's card: billed at the default region's
    /// rates (`no_region_price`).
    NoRegionPrice,
    /// No `time_window_share` given: the share of requests inside the card's time windows taken
    /// as the share of the week's hours they cover (`time_window_share_by_hours`).
    TimeWindowShareByHours,
    /// The time of day of the request is not known (no `at`, or a date only): billed at the
    /// rates outside the card's time windows (`time_of_day_unknown`).
    TimeOfDayUnknown,
    /// No output price: the model returns no output tokens (an embedding or rerank model, whose
    /// provider bills input only), so no output is billed (`no_output_price`).
    NoOutputPrice,
}

/// The price assumptions in the order they are listed; the index is the flag bit.
const PRICE_ASSUMPTIONS: [Assumption; 19] = [
    Assumption::NoCachedInputPrice,
    Assumption::CachedInputPriceCapped,
    Assumption::NoBatchPrice,
    Assumption::NoBatchInputPrice,
    Assumption::NoBatchOutputPrice,
    Assumption::BatchInputPriceCapped,
    Assumption::BatchOutputPriceCapped,
    Assumption::NoBatchCachedInputPrice,
    Assumption::BatchCachedInputPriceCapped,
    Assumption::NoCacheWritePrice,
    Assumption::NoBatchCacheWritePrice,
    Assumption::BatchCacheWritePriceCapped,
    Assumption::ContextTierRates,
    Assumption::NoServiceTierPrice,
    Assumption::PromotionalRate,
    Assumption::NoRegionPrice,
    Assumption::TimeWindowShareByHours,
    Assumption::TimeOfDayUnknown,
    Assumption::NoOutputPrice,
];

impl Assumption {
    /// The stable snake_case code of the assumption.
    pub const fn code(self) -> &'static str {
        match self {
            Assumption::PresetVolumes(_) => "preset_volumes",
            Assumption::PresetInputVolume(_) => "preset_input_volume",
            Assumption::PresetOutputVolume(_) => "preset_output_volume",
            Assumption::PresetIgnored(_) => "preset_ignored",
            Assumption::NoCachedInputPrice => "no_cached_input_price",
            Assumption::CachedInputPriceCapped => "cached_input_price_capped",
            Assumption::NoBatchPrice => "no_batch_price",
            Assumption::NoBatchInputPrice => "no_batch_input_price",
            Assumption::NoBatchOutputPrice => "no_batch_output_price",
            Assumption::BatchInputPriceCapped => "batch_input_price_capped",
            Assumption::BatchOutputPriceCapped => "batch_output_price_capped",
            Assumption::NoBatchCachedInputPrice => "no_batch_cached_input_price",
            Assumption::BatchCachedInputPriceCapped => "batch_cached_input_price_capped",
            Assumption::NoCacheWritePrice => "no_cache_write_price",
            Assumption::NoBatchCacheWritePrice => "no_batch_cache_write_price",
            Assumption::BatchCacheWritePriceCapped => "batch_cache_write_price_capped",
            Assumption::ContextTierRates => "context_tier_rates",
            Assumption::NoServiceTierPrice => "no_service_tier_price",
            Assumption::PromotionalRate => "promotional_rate",
            Assumption::NoRegionPrice => "no_region_price",
            Assumption::TimeWindowShareByHours => "time_window_share_by_hours",
            Assumption::TimeOfDayUnknown => "time_of_day_unknown",
            Assumption::NoOutputPrice => "no_output_price",
        }
    }

    /// The preset the assumption is about, if any.
    pub const fn preset(self) -> Option<Preset> {
        match self {
            Assumption::PresetVolumes(p)
            | Assumption::PresetInputVolume(p)
            | Assumption::PresetOutputVolume(p)
            | Assumption::PresetIgnored(p) => Some(p),
            _ => None,
        }
    }

    /// The human text of the assumption (the same as its `Display`).
    pub fn text(self) -> String {
        self.to_string()
    }

    /// Parses a code (plus the preset, for the preset codes) back into an assumption.
    pub fn from_code(code: &str, preset: Option<Preset>) -> Option<Assumption> {
        let with_preset = |make: fn(Preset) -> Assumption| preset.map(make);
        match code {
            "preset_volumes" => with_preset(Assumption::PresetVolumes),
            "preset_input_volume" => with_preset(Assumption::PresetInputVolume),
            "preset_output_volume" => with_preset(Assumption::PresetOutputVolume),
            "preset_ignored" => with_preset(Assumption::PresetIgnored),
            _ => PRICE_ASSUMPTIONS.into_iter().find(|a| a.code() == code),
        }
    }

    /// The flag bit of a price assumption: its index in [`PRICE_ASSUMPTIONS`].
    const fn flag(self) -> Option<u32> {
        let bit = match self {
            Assumption::PresetVolumes(_)
            | Assumption::PresetInputVolume(_)
            | Assumption::PresetOutputVolume(_)
            | Assumption::PresetIgnored(_) => return None,
            Assumption::NoCachedInputPrice => 0,
            Assumption::CachedInputPriceCapped => 1,
            Assumption::NoBatchPrice => 2,
            Assumption::NoBatchInputPrice => 3,
            Assumption::NoBatchOutputPrice => 4,
            Assumption::BatchInputPriceCapped => 5,
            Assumption::BatchOutputPriceCapped => 6,
            Assumption::NoBatchCachedInputPrice => 7,
            Assumption::BatchCachedInputPriceCapped => 8,
            Assumption::NoCacheWritePrice => 9,
            Assumption::NoBatchCacheWritePrice => 10,
            Assumption::BatchCacheWritePriceCapped => 11,
            Assumption::ContextTierRates => 12,
            Assumption::NoServiceTierPrice => 13,
            Assumption::PromotionalRate => 14,
            Assumption::NoRegionPrice => 15,
            Assumption::TimeWindowShareByHours => 16,
            Assumption::TimeOfDayUnknown => 17,
            Assumption::NoOutputPrice => 18,
        };
        Some(1 << bit)
    }
}

impl fmt::Display for Assumption {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let volumes = |p: Preset| {
            let v = p.volumes();
            (
                Thousands(v.input_tokens_per_request),
                Thousands(v.output_tokens_per_request),
            )
        };
        match *self {
            Assumption::PresetVolumes(p) => {
                let (input, output) = volumes(p);
                write!(
                    f,
                    "preset {p}: {input} input / {output} output tokens per request"
                )
            }
            Assumption::PresetInputVolume(p) => {
                let (input, _) = volumes(p);
                write!(
                    f,
                    "preset {p}: {input} input tokens per request; output tokens per request as given"
                )
            }
            Assumption::PresetOutputVolume(p) => {
                let (_, output) = volumes(p);
                write!(
                    f,
                    "preset {p}: {output} output tokens per request; input tokens per request as given"
                )
            }
            Assumption::PresetIgnored(p) => write!(
                f,
                "preset {p} not used: both token volumes per request were given"
            ),
            Assumption::NoCachedInputPrice => {
                f.write_str("no cached-input price: cached input tokens billed at the input price")
            }
            Assumption::CachedInputPriceCapped => f.write_str(
                "cached-input price above the input price: cached input tokens billed at the input price",
            ),
            Assumption::NoBatchPrice => {
                f.write_str("no batch price: the batch share billed at standard prices")
            }
            Assumption::NoBatchInputPrice => f.write_str(
                "no batch input price: input tokens of the batch share billed at the input price",
            ),
            Assumption::NoBatchOutputPrice => f.write_str(
                "no batch output price: output tokens of the batch share billed at the output price",
            ),
            Assumption::BatchInputPriceCapped => f.write_str(
                "batch input price above the input price: batch input tokens billed at the input price",
            ),
            Assumption::BatchOutputPriceCapped => f.write_str(
                "batch output price above the output price: batch output tokens billed at the output price",
            ),
            Assumption::NoBatchCachedInputPrice => f.write_str(
                "no batch cached-input price: cached input tokens of the batch share billed at the \
                 lower of the cached-input and batch input prices",
            ),
            Assumption::BatchCachedInputPriceCapped => f.write_str(
                "batch cached-input price above the cached-input or batch input price: billed at \
                 the lower of those",
            ),
            Assumption::NoCacheWritePrice => f.write_str(
                "no cache-write price: tokens written into the cache billed at the input price",
            ),
            Assumption::NoBatchCacheWritePrice => f.write_str(
                "no batch cache-write price: cache writes of the batch share billed at the \
                 cache-write price",
            ),
            Assumption::BatchCacheWritePriceCapped => f.write_str(
                "batch cache-write price above the cache-write price: billed at the cache-write price",
            ),
            Assumption::ContextTierRates => f.write_str(
                "input tokens per request above the model's context threshold \
                 (conditions.above_input_tokens): every token of a request billed at that \
                 threshold's rates",
            ),
            Assumption::NoServiceTierPrice => f.write_str(
                "no rates published for the service tier asked: the non-batch share billed at \
                 standard rates",
            ),
            Assumption::PromotionalRate => f.write_str(
                "a rate of the model's card on this tier is promotional: the cost holds until the \
                 promotion ends (rates[].promotion.until)",
            ),
            Assumption::NoRegionPrice => f.write_str(
                "no rate published for the region asked: billed at the channel's default-region \
                 rates",
            ),
            Assumption::TimeWindowShareByHours => f.write_str(
                "share of requests inside the card's time windows (conditions.time_window_share) \
                 taken as the share of the week's hours the windows cover",
            ),
            Assumption::TimeOfDayUnknown => f.write_str(
                "time of day of the request not known (give `at` as an RFC 3339 timestamp): \
                 billed at the rates outside the card's time windows",
            ),
            Assumption::NoOutputPrice => f.write_str(
                "no output price: the model returns no output tokens (an embedding or rerank \
                 model, billed for input only), so no output is billed",
            ),
        }
    }
}

/// Prints an integer with comma thousands separators: `30,000`.
struct Thousands(u64);

impl fmt::Display for Thousands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let digits = self.0.to_string();
        for (i, digit) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                f.write_str(",")?;
            }
            write!(f, "{digit}")?;
        }
        Ok(())
    }
}

impl Serialize for Assumption {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let preset = self.preset();
        let mut out = s.serialize_struct("Assumption", 2 + usize::from(preset.is_some()))?;
        out.serialize_field("code", self.code())?;
        if let Some(preset) = preset {
            out.serialize_field("preset", &preset)?;
        }
        out.serialize_field("text", &self.to_string())?;
        out.end()
    }
}

impl<'de> Deserialize<'de> for Assumption {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        /// The text is derived from the code, so a received text is read and dropped.
        #[derive(Deserialize)]
        struct Wire {
            code: String,
            #[serde(default)]
            preset: Option<Preset>,
        }
        let wire = Wire::deserialize(d)?;
        Assumption::from_code(&wire.code, wire.preset).ok_or_else(|| {
            de::Error::custom(format_args!(
                "unknown assumption code `{}` (or a preset code without `preset`)",
                wire.code
            ))
        })
    }
}

/// The assumptions behind one estimate: at most one about the preset, then price fallbacks in a
/// fixed order. Serialized as a JSON array of [`Assumption`] objects.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Assumptions {
    workload: Option<Assumption>,
    price_flags: u32,
}

impl Assumptions {
    /// A set holding only the given workload (preset) assumption.
    pub(crate) const fn from_workload(workload: Option<Assumption>) -> Self {
        Assumptions {
            workload,
            price_flags: 0,
        }
    }

    /// Adds `assumption` when `condition` holds.
    #[inline]
    pub(crate) fn add_if(&mut self, condition: bool, assumption: Assumption) {
        if condition {
            self.insert(assumption);
        }
    }

    /// Adds an assumption. A second preset assumption replaces the first.
    pub fn insert(&mut self, assumption: Assumption) {
        match assumption.flag() {
            Some(flag) => self.price_flags |= flag,
            None => self.workload = Some(assumption),
        }
    }

    /// Whether the set holds `assumption`.
    pub fn contains(&self, assumption: Assumption) -> bool {
        match assumption.flag() {
            Some(flag) => self.price_flags & flag != 0,
            None => self.workload == Some(assumption),
        }
    }

    /// The assumptions in listing order: the preset one first, then the price fallbacks.
    pub fn iter(&self) -> impl Iterator<Item = Assumption> + '_ {
        let flags = self.price_flags;
        self.workload.into_iter().chain(
            PRICE_ASSUMPTIONS
                .into_iter()
                .enumerate()
                .filter(move |(bit, _)| flags & (1 << bit) != 0)
                .map(|(_, a)| a),
        )
    }

    /// How many assumptions the set holds.
    pub fn len(&self) -> usize {
        usize::from(self.workload.is_some()) + self.price_flags.count_ones() as usize
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl FromIterator<Assumption> for Assumptions {
    fn from_iter<I: IntoIterator<Item = Assumption>>(iter: I) -> Self {
        let mut set = Assumptions::default();
        for assumption in iter {
            set.insert(assumption);
        }
        set
    }
}

impl Serialize for Assumptions {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Assumptions {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Assumption>::deserialize(d)?.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preset_text_spells_out_the_volumes() {
        assert_eq!(
            Assumption::PresetVolumes(Preset::CodingAgent).to_string(),
            "preset coding_agent: 30,000 input / 1,000 output tokens per request"
        );
        assert_eq!(
            Assumption::PresetVolumes(Preset::Classification).to_string(),
            "preset classification: 500 input / 10 output tokens per request"
        );
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(Thousands(0).to_string(), "0");
        assert_eq!(Thousands(999).to_string(), "999");
        assert_eq!(Thousands(1_000).to_string(), "1,000");
        assert_eq!(Thousands(1_234_567).to_string(), "1,234,567");
        assert_eq!(
            Thousands(u64::MAX).to_string(),
            "18,446,744,073,709,551,615"
        );
    }

    #[test]
    fn flag_bits_follow_the_listing_order() {
        for (bit, assumption) in PRICE_ASSUMPTIONS.into_iter().enumerate() {
            assert_eq!(assumption.flag(), Some(1 << bit), "{assumption:?}");
        }
        assert_eq!(Assumption::PresetIgnored(Preset::Chatbot).flag(), None);
    }

    #[test]
    fn every_code_parses_back() {
        let all = PRESET_CODES
            .into_iter()
            .map(|make| make(Preset::RagQa))
            .chain(PRICE_ASSUMPTIONS);
        for assumption in all {
            assert_eq!(
                Assumption::from_code(assumption.code(), assumption.preset()),
                Some(assumption)
            );
        }
        assert_eq!(Assumption::from_code("preset_volumes", None), None);
        assert_eq!(Assumption::from_code("made_up", None), None);
    }

    const PRESET_CODES: [fn(Preset) -> Assumption; 4] = [
        Assumption::PresetVolumes,
        Assumption::PresetInputVolume,
        Assumption::PresetOutputVolume,
        Assumption::PresetIgnored,
    ];

    #[test]
    fn a_set_lists_the_preset_first_then_prices_in_fixed_order() {
        let set: Assumptions = [
            Assumption::NoBatchPrice,
            Assumption::NoCachedInputPrice,
            Assumption::PresetVolumes(Preset::Chatbot),
        ]
        .into_iter()
        .collect();
        let listed: Vec<_> = set.iter().collect();
        assert_eq!(
            listed,
            [
                Assumption::PresetVolumes(Preset::Chatbot),
                Assumption::NoCachedInputPrice,
                Assumption::NoBatchPrice,
            ]
        );
        assert_eq!(set.len(), 3);
        assert!(set.contains(Assumption::NoBatchPrice));
        assert!(!set.contains(Assumption::NoBatchInputPrice));
    }

    #[test]
    fn a_set_round_trips_through_json() {
        let set: Assumptions = [
            Assumption::PresetInputVolume(Preset::Translation),
            Assumption::BatchCachedInputPriceCapped,
        ]
        .into_iter()
        .collect();
        let json = serde_json::to_value(set).expect("serializes");
        assert_eq!(json[0]["code"], "preset_input_volume");
        assert_eq!(json[0]["preset"], "translation");
        assert_eq!(
            json[1]["text"],
            Assumption::BatchCachedInputPriceCapped.to_string()
        );
        assert!(json[1].get("preset").is_none());
        let back: Assumptions = serde_json::from_value(json).expect("deserializes");
        assert_eq!(back, set);
    }
}
