//! Rate cards: every rate of a model on one channel and day, with the condition under which each
//! applies, and the one rule that picks the rates a request is billed at.
//!
//! A rate is a price (USD per 1M tokens) of a component (`input`, `output`, `cached_input`,
//! `cache_write`) on a service tier (`standard`, `batch`, `flex`, `priority`), optionally only
//! for requests whose input tokens exceed a threshold (`above_input_tokens`: Gemini 2.5 Pro above
//! 200,000), and for cache writes the cache's time to live (`cache_ttl`: Anthropic's 5-minute and
//! 1-hour writes), in a region other than the channel's default (`region`: Bedrock's `eu` data
//! zone) or only in some hours of the week (`time_window`: DeepSeek's peak hours).
//! `POST /api/v1/estimate` and `POST /api/v1/cost` both bill through
//! [`RateCard::select`], so a workload and a single usage record are priced by the same rule.

use std::fmt;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::condition::{MINUTES_PER_WEEK, Region, TimeWindow, WindowName};
use crate::money::serde_helpers;
use crate::prices::ModelPrices;

/// A priced part of a request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Component {
    /// Input tokens not served from the prompt cache.
    Input,
    /// Output tokens (reasoning tokens included).
    Output,
    /// Input tokens read from the prompt cache.
    CachedInput,
    /// Input tokens written into the prompt cache.
    CacheWrite,
}

/// How a request is processed, each at its own rates.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(rename_all = "snake_case")]
pub enum ServiceTier {
    /// The default processing.
    #[default]
    Standard,
    /// Asynchronous batch processing.
    Batch,
    /// Slower, cheaper processing (OpenAI's `flex`).
    Flex,
    /// Faster, dearer processing (`priority`).
    Priority,
}

impl ServiceTier {
    /// The tiers a request's body may name for its non-batch traffic, as one string.
    pub const INTERACTIVE_ALLOWED: &'static str = "one of standard, flex, priority";

    /// The tier's wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            ServiceTier::Standard => "standard",
            ServiceTier::Batch => "batch",
            ServiceTier::Flex => "flex",
            ServiceTier::Priority => "priority",
        }
    }
}

impl fmt::Display for ServiceTier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ServiceTier {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        [
            ServiceTier::Standard,
            ServiceTier::Batch,
            ServiceTier::Flex,
            ServiceTier::Priority,
        ]
        .into_iter()
        .find(|t| t.as_str() == s)
        .ok_or(())
    }
}

/// How long a cache write keeps the tokens cached.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
pub enum CacheTtl {
    /// Five minutes (Anthropic's default).
    #[default]
    #[serde(rename = "5m")]
    FiveMinutes,
    /// One hour.
    #[serde(rename = "1h")]
    OneHour,
}

impl CacheTtl {
    /// The allowed values, as one string.
    pub const ALLOWED: &'static str = "one of 5m, 1h";

    /// The TTL's wire name.
    pub const fn as_str(self) -> &'static str {
        match self {
            CacheTtl::FiveMinutes => "5m",
            CacheTtl::OneHour => "1h",
        }
    }
}

impl FromStr for CacheTtl {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        match s {
            "5m" => Ok(CacheTtl::FiveMinutes),
            "1h" => Ok(CacheTtl::OneHour),
            _ => Err(()),
        }
    }
}

/// One published rate and its condition.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Rate {
    /// What it prices.
    pub component: Component,
    /// The service tier it belongs to.
    pub tier: ServiceTier,
    /// Applies only to a request with more input tokens than this (the whole request is billed
    /// at the rates of the highest threshold it exceeds); `None`: any request.
    #[serde(default)]
    pub above_input_tokens: Option<u64>,
    /// For a cache write, how long the tokens stay cached; `None`: not stated by the source.
    #[serde(default)]
    pub cache_ttl: Option<CacheTtl>,
    /// Where the rate applies; `None`: the channel's default region.
    #[serde(default)]
    pub region: Option<Region>,
    /// The UTC hours of the week the rate applies in; `None`: any time.
    #[serde(default)]
    pub time_window: Option<TimeWindow>,
    /// USD per 1M tokens.
    #[serde(with = "serde_helpers::exact")]
    pub usd_per_1m: Decimal,
    /// The source release that shows it (`litellm 1.109.1`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The provider states the rate is promotional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub promotion: Option<Promotion>,
}

/// A promotional (introductory) rate: the last day it applies where the provider names one, and
/// the provider's page that says so.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Promotion {
    /// The last day (`YYYY-MM-DD`) the rate applies; `None`: no end stated.
    pub until: Option<String>,
    /// The provider's page.
    pub url: String,
}

/// The conditions a request was billed under: what [`RateCard::select`] chose.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Conditions {
    /// The tier of the non-batch traffic.
    pub service_tier: ServiceTier,
    /// The context threshold whose rates priced the whole request, if one was exceeded.
    pub above_input_tokens: Option<u64>,
    /// The cache-write TTL asked for.
    pub cache_ttl: CacheTtl,
    /// The region asked for, when the card has rates there (others are the default region's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub region: Option<Region>,
    /// The time window whose rates priced the request, if one did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time_window: Option<WindowName>,
    /// The region asked for has no rate at all on the card: default-region rates were used.
    #[serde(skip)]
    pub region_missing: bool,
    /// The share of requests billed at the time windows' rates (an estimate on a card with
    /// windowed rates).
    #[serde(
        default,
        serialize_with = "serde_helpers::optional_exact",
        skip_serializing_if = "Option::is_none",
        deserialize_with = "serde_helpers::optional_decimal"
    )]
    pub time_window_share: Option<Decimal>,
    /// The share was taken from the hours the windows cover, none being given.
    #[serde(skip)]
    pub share_by_hours: bool,
    /// The service tier asked for had no published rates, so standard rates were used.
    #[serde(skip)]
    pub service_tier_missing: bool,
    /// A rate picked is promotional (its `promotion` says until when).
    #[serde(skip)]
    pub promotional: bool,
}

/// The rates picked for one request size: for each component, the rate that bills it on the
/// chosen tier, and on the batch tier.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selected<'a> {
    /// Rates of the non-batch traffic, by component (`None`: not published).
    pub interactive: [Option<&'a Rate>; 4],
    /// Rates of the batch traffic, by component.
    pub batch: [Option<&'a Rate>; 4],
    /// The conditions chosen.
    pub conditions: Conditions,
}

const COMPONENTS: [Component; 4] = [
    Component::Input,
    Component::Output,
    Component::CachedInput,
    Component::CacheWrite,
];

impl<'a> Selected<'a> {
    /// The rate of `component` on the non-batch traffic.
    pub fn interactive(&self, component: Component) -> Option<&'a Rate> {
        self.interactive[component as usize]
    }

    /// The prices the estimator bills a workload with; `None` without standard-tier input and
    /// output rates.
    pub fn prices(&self) -> Option<ModelPrices> {
        let price = |slot: Option<&Rate>| slot.map(|r| r.usd_per_1m);
        let [input, output, cached_input, cache_write] = self.interactive.map(price);
        let [
            batch_input,
            batch_output,
            batch_cached_input,
            batch_cache_write,
        ] = self.batch.map(price);
        let mut prices = ModelPrices::new(input?, output?);
        prices.cached_input = cached_input;
        prices.cache_write = cache_write;
        prices.batch_input = batch_input;
        prices.batch_output = batch_output;
        prices.batch_cached_input = batch_cached_input;
        prices.batch_cache_write = batch_cache_write;
        Some(prices)
    }
}

/// Every rate of one model on one channel and day.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct RateCard(pub Vec<Rate>);

/// When in the week a request is served, as far as it is known.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum When {
    /// Not known, or outside every time window: the rates without a window.
    #[default]
    Unknown,
    /// At this minute of the week (0 = Monday 00:00 UTC): a windowed rate whose window holds it.
    At(u32),
    /// Inside the card's time windows (the windowed share of an estimate).
    InWindow,
}

/// Where and when a request is served: the conditions of [`RateCard::select`] besides its size,
/// tier and cache TTL.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Served {
    /// The region asked for; `None`: the channel's default.
    pub region: Option<Region>,
    /// The time of the week.
    pub when: When,
}

impl Served {
    /// The default region, at an unknown time.
    pub const DEFAULT: Served = Served {
        region: None,
        when: When::Unknown,
    };
}

impl RateCard {
    /// The rates that bill a request with `input_tokens` input tokens (cached and written ones
    /// included) on `tier` (its batch share on the batch tier), cache writes at `ttl`, served
    /// where and when `served` says.
    ///
    /// The rule: the context threshold is the highest `above_input_tokens` of the tier's input
    /// rates that `input_tokens` exceeds; every component is then billed at its rate for that
    /// threshold, or, where the tier publishes none for it, at its rate without one (the whole
    /// request is repriced once over the threshold, as Google, Anthropic and OpenAI bill it).
    /// Among those, a rate of the asked region comes before the default region's, and a rate
    /// whose time window holds the request's time before one without a window (a request at an
    /// unknown time is billed without windows). A cache write takes the rate of the asked TTL,
    /// else one whose TTL the source does not state. A tier without input and output rates
    /// falls back to the standard tier (`conditions.service_tier_missing`); batch traffic without
    /// batch rates is left to the estimator's fallbacks.
    pub fn select(
        &self,
        input_tokens: u64,
        tier: ServiceTier,
        ttl: CacheTtl,
        served: Served,
    ) -> Selected<'_> {
        let has_base = |t: ServiceTier| {
            [Component::Input, Component::Output].iter().all(|c| {
                self.0.iter().any(|r| {
                    r.tier == t
                        && r.component == *c
                        && r.above_input_tokens.is_none()
                        && r.region.is_none()
                        && r.time_window.is_none()
                })
            })
        };
        let missing = tier != ServiceTier::Standard && !has_base(tier);
        let tier = if missing { ServiceTier::Standard } else { tier };
        let region_priced = served
            .region
            .filter(|asked| self.0.iter().any(|r| r.region == Some(*asked)));
        let region_missing = served.region.is_some() && region_priced.is_none();
        let served = Served {
            region: region_priced,
            ..served
        };
        let (interactive, threshold) = self.tier_rates(tier, input_tokens, ttl, served);
        let (batch, _) = self.tier_rates(ServiceTier::Batch, input_tokens, ttl, served);
        let picked = || interactive.iter().chain(&batch).flatten();
        let promotional = picked().any(|r| r.promotion.is_some());
        let time_window = picked().find_map(|r| r.time_window.as_ref().map(|w| w.name));
        Selected {
            interactive,
            batch,
            conditions: Conditions {
                service_tier: tier,
                above_input_tokens: threshold,
                cache_ttl: ttl,
                region: region_priced,
                time_window,
                region_missing,
                time_window_share: None,
                share_by_hours: false,
                service_tier_missing: missing,
                promotional,
            },
        }
    }

    /// The time windows of the card's rates.
    pub fn time_windows(&self) -> impl Iterator<Item = &TimeWindow> {
        self.0.iter().filter_map(|r| r.time_window.as_ref())
    }

    /// The share of the week's hours the card's time windows cover (each distinct window once;
    /// the windows of one card do not overlap); `None` without windowed rates.
    pub fn time_window_hours_share(&self) -> Option<Decimal> {
        let mut seen: Vec<&TimeWindow> = Vec::new();
        for w in self.time_windows() {
            if !seen.contains(&w) {
                seen.push(w);
            }
        }
        let minutes: u32 = seen.iter().map(|w| w.minutes_per_week()).sum();
        (!seen.is_empty())
            .then(|| Decimal::from(minutes.min(MINUTES_PER_WEEK)) / Decimal::from(MINUTES_PER_WEEK))
    }

    fn tier_rates(
        &self,
        tier: ServiceTier,
        input_tokens: u64,
        ttl: CacheTtl,
        served: Served,
    ) -> ([Option<&Rate>; 4], Option<u64>) {
        let threshold = self
            .0
            .iter()
            .filter(|r| r.tier == tier && r.component == Component::Input)
            .filter_map(|r| r.above_input_tokens)
            .filter(|t| input_tokens > *t)
            .max();
        let in_window = |w: &TimeWindow| match served.when {
            When::Unknown => false,
            When::At(minute) => w.contains(minute),
            When::InWindow => true,
        };
        let regions = [served.region, None];
        let pick = |component: Component| {
            let of = |above: Option<u64>, region: Option<Region>, windowed: bool| {
                let matching = |r: &&Rate| {
                    r.tier == tier
                        && r.component == component
                        && r.above_input_tokens == above
                        && r.region == region
                        && match &r.time_window {
                            None => !windowed,
                            Some(w) => windowed && in_window(w),
                        }
                };
                if component == Component::CacheWrite {
                    let with = |want: Option<CacheTtl>| {
                        self.0.iter().filter(matching).find(|r| r.cache_ttl == want)
                    };
                    with(Some(ttl)).or_else(|| with(None))
                } else {
                    self.0.iter().find(matching)
                }
            };
            let at = |above: Option<u64>| {
                regions
                    .iter()
                    .flat_map(|region| [true, false].map(|windowed| (*region, windowed)))
                    .find_map(|(region, windowed)| of(above, region, windowed))
            };
            threshold.and_then(|t| at(Some(t))).or_else(|| at(None))
        };
        (COMPONENTS.map(pick), threshold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rate(
        component: Component,
        tier: ServiceTier,
        above: Option<u64>,
        ttl: Option<CacheTtl>,
        usd: &str,
    ) -> Rate {
        Rate {
            component,
            tier,
            above_input_tokens: above,
            cache_ttl: ttl,
            usd_per_1m: usd.parse().expect("a decimal"),
            region: None,
            time_window: None,
            source: Some("litellm 1.109.1".into()),
            promotion: None,
        }
    }

    /// Gemini 2.5 Pro on Google's own API (litellm 1.109.1): 1.25 / 10, above 200k 2.5 / 15.
    fn gemini_25_pro() -> RateCard {
        use Component::*;
        use ServiceTier::*;
        RateCard(vec![
            rate(Input, Standard, None, None, "1.25"),
            rate(Input, Standard, Some(200_000), None, "2.5"),
            rate(Output, Standard, None, None, "10"),
            rate(Output, Standard, Some(200_000), None, "15"),
            rate(CachedInput, Standard, None, None, "0.125"),
            rate(CachedInput, Standard, Some(200_000), None, "0.25"),
            rate(Input, Batch, None, None, "0.625"),
            rate(Input, Batch, Some(200_000), None, "1.25"),
            rate(Output, Batch, None, None, "5"),
            rate(Input, Priority, None, None, "2.25"),
            rate(Output, Priority, None, None, "18"),
        ])
    }

    #[test]
    fn a_request_over_the_threshold_is_billed_whole_at_the_tier_rates() {
        let card = gemini_25_pro();
        let below = card.select(
            200_000,
            ServiceTier::Standard,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        let p = below.prices().expect("priced");
        assert_eq!(
            (
                p.input.to_string(),
                p.output.expect("an output rate").to_string()
            ),
            ("1.25".into(), "10".into())
        );
        assert_eq!(below.conditions.above_input_tokens, None);

        let above = card.select(
            300_000,
            ServiceTier::Standard,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        let p = above.prices().expect("priced");
        assert_eq!(p.input.to_string(), "2.5");
        assert_eq!(p.output.expect("an output rate").to_string(), "15");
        assert_eq!(p.cached_input.expect("published").to_string(), "0.25");
        assert_eq!(above.conditions.above_input_tokens, Some(200_000));
        // batch: the threshold's input rate, and the output rate without one (none published)
        assert_eq!(p.batch_input.expect("published").to_string(), "1.25");
        assert_eq!(p.batch_output.expect("published").to_string(), "5");
    }

    #[test]
    fn a_tier_without_rates_falls_back_to_standard_and_says_so() {
        let card = gemini_25_pro();
        let priority = card.select(
            1_000,
            ServiceTier::Priority,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        assert_eq!(priority.prices().expect("priced").input.to_string(), "2.25");
        assert!(!priority.conditions.service_tier_missing);
        let flex = card.select(
            1_000,
            ServiceTier::Flex,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        assert_eq!(flex.conditions.service_tier, ServiceTier::Standard);
        assert!(flex.conditions.service_tier_missing);
        assert_eq!(flex.prices().expect("priced").input.to_string(), "1.25");
    }

    #[test]
    fn cache_writes_take_the_asked_ttl_else_an_unstated_one() {
        use Component::*;
        use ServiceTier::*;
        // Claude Sonnet 4.5 on Anthropic's API: writes 3.75 (5 minutes) and 6 (1 hour).
        let card = RateCard(vec![
            rate(Input, Standard, None, None, "3"),
            rate(Output, Standard, None, None, "15"),
            rate(
                CacheWrite,
                Standard,
                None,
                Some(CacheTtl::FiveMinutes),
                "3.75",
            ),
            rate(CacheWrite, Standard, None, Some(CacheTtl::OneHour), "6"),
        ]);
        let five = card.select(1_000, Standard, CacheTtl::FiveMinutes, Served::DEFAULT);
        assert_eq!(
            five.prices()
                .expect("priced")
                .cache_write
                .expect("published")
                .to_string(),
            "3.75"
        );
        let hour = card.select(1_000, Standard, CacheTtl::OneHour, Served::DEFAULT);
        assert_eq!(
            hour.prices()
                .expect("priced")
                .cache_write
                .expect("published")
                .to_string(),
            "6"
        );

        let unstated = RateCard(vec![
            rate(Input, Standard, None, None, "1"),
            rate(Output, Standard, None, None, "2"),
            rate(CacheWrite, Standard, None, None, "1.5"),
        ]);
        let any = unstated.select(1, Standard, CacheTtl::OneHour, Served::DEFAULT);
        assert_eq!(
            any.prices()
                .expect("priced")
                .cache_write
                .expect("published")
                .to_string(),
            "1.5"
        );
    }

    #[test]
    fn a_promotional_rate_marks_the_conditions_and_keeps_its_end() {
        // Gemini 3.7 Flash on Google's API: "an introductory price of $0.75/1M input tokens and
        // $3.75/1M output tokens ... Introductory pricing expires on December 31, 2026"
        let json = r#"[
            {"component": "input", "tier": "standard", "usd_per_1m": "0.75",
             "promotion": {"until": "2026-12-31", "url": "https://ai.google.dev/gemini-api/docs/latest-model"}},
            {"component": "output", "tier": "standard", "usd_per_1m": "3.75",
             "promotion": {"until": "2026-12-31", "url": "https://ai.google.dev/gemini-api/docs/latest-model"}}]"#;
        let card: RateCard = serde_json::from_str(json).expect("a rate card");
        let picked = card.select(
            1_000,
            ServiceTier::Standard,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        assert!(picked.conditions.promotional);
        let input = picked.interactive(Component::Input).expect("input");
        assert_eq!(
            input.promotion.as_ref().and_then(|p| p.until.as_deref()),
            Some("2026-12-31")
        );
        let regular = gemini_25_pro();
        let picked = regular.select(
            1_000,
            ServiceTier::Standard,
            CacheTtl::FiveMinutes,
            Served::DEFAULT,
        );
        assert!(!picked.conditions.promotional);
    }

    #[test]
    fn rates_read_the_wire_form() {
        let json = r#"[{"component": "cache_write", "tier": "standard", "above_input_tokens": null,
            "cache_ttl": "1h", "usd_per_1m": "6", "source": "litellm 1.109.1",
            "last_verified_at": "2026-11-12T00:00:00Z"}]"#;
        let card: RateCard = serde_json::from_str(json).expect("rates");
        assert_eq!(card.0[0].cache_ttl, Some(CacheTtl::OneHour));
        assert_eq!(card.0[0].component, Component::CacheWrite);
        assert_eq!("priority".parse::<ServiceTier>(), Ok(ServiceTier::Priority));
        assert!("fast".parse::<ServiceTier>().is_err());
    }

    /// DeepSeek V4 Pro on DeepSeek's API (litellm 1.104.5+): off-peak (standard) 0.66 / 1.98 /
    /// cached 0.022, peak 1.32 / 3.96 / 0.044 Monday to Friday 01:00-04:00 and 06:00-10:00 UTC.
    fn deepseek_v4_pro() -> RateCard {
        let peak: TimeWindow = serde_json::from_str(
            r#"{"name": "peak", "spans": [
                {"weekdays": [1, 2, 3, 4, 5], "from": "01:00", "to": "04:00"},
                {"weekdays": [1, 2, 3, 4, 5], "from": "06:00", "to": "10:00"}]}"#,
        )
        .expect("a window");
        use Component::*;
        use ServiceTier::*;
        let mut card = vec![
            rate(Input, Standard, None, None, "0.66"),
            rate(Output, Standard, None, None, "1.98"),
            rate(CachedInput, Standard, None, None, "0.022"),
        ];
        for (c, usd) in [(Input, "1.32"), (Output, "3.96"), (CachedInput, "0.044")] {
            let mut r = rate(c, Standard, None, None, usd);
            r.time_window = Some(peak.clone());
            card.push(r);
        }
        RateCard(card)
    }

    #[test]
    fn a_request_inside_a_time_window_takes_the_windowed_rates() {
        let card = deepseek_v4_pro();
        let at = |when| {
            let s = card.select(
                1_000,
                ServiceTier::Standard,
                CacheTtl::FiveMinutes,
                Served { region: None, when },
            );
            let p = s.prices().expect("priced");
            (
                p.input.to_string(),
                p.output.expect("an output rate").to_string(),
                s.conditions.time_window,
            )
        };
        // Tuesday 02:30 UTC (minute 1440 + 150) is peak; Tuesday 12:00 and Saturday 02:30 not.
        let peak = ("1.32".to_owned(), "3.96".to_owned(), Some(WindowName::Peak));
        let standard = ("0.66".to_owned(), "1.98".to_owned(), None);
        assert_eq!(at(When::At(1440 + 150)), peak);
        assert_eq!(at(When::At(1440 + 720)), standard);
        assert_eq!(at(When::At(5 * 1440 + 150)), standard);
        assert_eq!(at(When::Unknown), standard);
        assert_eq!(at(When::InWindow), peak);
        assert_eq!(
            card.time_window_hours_share(),
            Some(Decimal::from(35) / Decimal::from(168))
        );
        assert_eq!(gemini_25_pro().time_window_hours_share(), None);
    }

    #[test]
    fn a_region_takes_its_rates_else_the_default_and_says_so() {
        use Component::*;
        use ServiceTier::*;
        // Claude Sonnet 4.5 on Bedrock (litellm 1.109.1): global 3 / 15, the eu zone 3.3 / 16.5.
        let eu: Region = "eu".parse().expect("a region");
        let mut card = vec![
            rate(Input, Standard, None, None, "3"),
            rate(Output, Standard, None, None, "15"),
        ];
        for (c, usd) in [(Input, "3.3"), (Output, "16.5")] {
            let mut r = rate(c, Standard, None, None, usd);
            r.region = Some(eu);
            card.push(r);
        }
        let card = RateCard(card);
        let in_region = |region: &str| {
            let s = card.select(
                1_000,
                Standard,
                CacheTtl::FiveMinutes,
                Served {
                    region: Some(region.parse().expect("a region")),
                    when: When::Unknown,
                },
            );
            let p = s.prices().expect("priced");
            (
                p.input.to_string(),
                p.output.expect("an output rate").to_string(),
                s.conditions.region_missing,
            )
        };
        assert_eq!(in_region("eu"), ("3.3".into(), "16.5".into(), false));
        assert_eq!(in_region("apac"), ("3".into(), "15".into(), true));
        let default = card.select(1_000, Standard, CacheTtl::FiveMinutes, Served::DEFAULT);
        assert_eq!(default.prices().expect("priced").input.to_string(), "3");
    }
}
