//! The two conditions of a rate that are about where and when a request is served: the region
//! ([`Region`]: a Bedrock data zone such as `eu`, an in-region endpoint such as `eu-west-1`) and
//! the hours of the week ([`TimeWindow`]: DeepSeek's peak hours). One reading of each, for the
//! snapshot reader that publishes them, the estimator that bills by them and the calculator.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// The longest region name.
const MAX_REGION_LEN: usize = 25;

/// Where a rate applies, as the channel names it: lower case, `^[a-z][a-z0-9-]{1,24}$`.
/// No region (`None` where one is optional) is the channel's default region.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Region {
    len: u8,
    bytes: [u8; MAX_REGION_LEN],
}

impl Region {
    /// What a region name must look like, for messages.
    pub const ALLOWED: &'static str = "a region the channel names, lower case: a letter, then 1 to 24 letters, digits or '-' \
         (us, eu, apac, eu-west-1)";

    /// The region's name.
    pub fn as_str(&self) -> &str {
        // Built only from ASCII by `from_str`.
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl FromStr for Region {
    type Err = ();

    fn from_str(s: &str) -> Result<Self, ()> {
        let b = s.as_bytes();
        let fits = (2..=MAX_REGION_LEN).contains(&b.len())
            && b[0].is_ascii_lowercase()
            && b[1..]
                .iter()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == b'-');
        if !fits {
            return Err(());
        }
        let mut bytes = [0; MAX_REGION_LEN];
        bytes[..b.len()].copy_from_slice(b);
        Ok(Region {
            len: u8::try_from(b.len()).map_err(|_| ())?,
            bytes,
        })
    }
}

impl fmt::Display for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Region {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Region({})", self.as_str())
    }
}

impl Serialize for Region {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Region {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        text.parse()
            .map_err(|()| serde::de::Error::custom(format!("`{text}` is not {}", Region::ALLOWED)))
    }
}

/// The name of a time window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowName {
    /// The dearer hours.
    Peak,
    /// The cheaper hours.
    OffPeak,
}

/// The UTC hours of the week a rate applies in: DeepSeek V4's peak is Monday to Friday
/// 01:00-04:00 and 06:00-10:00 UTC.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeWindow {
    /// `peak` or `off_peak`.
    pub name: WindowName,
    /// The spans, none overlapping another.
    pub spans: Vec<Span>,
}

/// Some hours of some weekdays, in UTC.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Span {
    /// ISO weekdays (1 = Monday ... 7 = Sunday), ascending, unique, at least one.
    pub weekdays: Vec<u8>,
    /// Start, `HH:MM`, inclusive.
    pub from: String,
    /// End, `HH:MM` after `from` (`24:00`: the day's end), exclusive.
    pub to: String,
}

/// Minutes in a week.
pub const MINUTES_PER_WEEK: u32 = 7 * 24 * 60;

/// Minutes since midnight of `HH:MM` (00:00 to 24:00).
fn minutes(text: &str) -> Option<u32> {
    let (h, m) = text.split_once(':')?;
    if h.len() != 2 || m.len() != 2 {
        return None;
    }
    let (h, m): (u32, u32) = (h.parse().ok()?, m.parse().ok()?);
    let total = h * 60 + m;
    (m < 60 && total <= 24 * 60).then_some(total)
}

impl Span {
    /// The span's minutes of the day, `[from, to)`, if its times are well formed.
    fn range(&self) -> Option<(u32, u32)> {
        Some((minutes(&self.from)?, minutes(&self.to)?))
    }
}

impl TimeWindow {
    /// Checks the window: at least one span; weekdays 1 to 7, ascending, unique, at least one;
    /// times `HH:MM` with `from` before `to` (`to` up to `24:00`); no two spans overlapping.
    pub fn check(&self) -> Result<(), String> {
        if self.spans.is_empty() {
            return Err("time_window has no spans; give at least one".into());
        }
        let mut taken: Vec<(u8, u32, u32)> = Vec::new();
        for (i, span) in self.spans.iter().enumerate() {
            let days = &span.weekdays;
            if days.is_empty()
                || days.iter().any(|d| !(1..=7).contains(d))
                || days.windows(2).any(|w| w[0] >= w[1])
            {
                return Err(format!(
                    "time_window span {i}: weekdays must be ISO days 1 (Monday) to 7 (Sunday), \
                     ascending, each once; got {days:?}"
                ));
            }
            let (from, to) = span.range().filter(|(f, t)| f < t).ok_or_else(|| {
                format!(
                    "time_window span {i}: from `{}` and to `{}` must be UTC times HH:MM with \
                     from before to (to at most 24:00)",
                    span.from, span.to
                )
            })?;
            for d in days {
                if taken
                    .iter()
                    .any(|(td, tf, tt)| td == d && from < *tt && *tf < to)
                {
                    return Err(format!(
                        "time_window span {i} overlaps another span on weekday {d}"
                    ));
                }
                taken.push((*d, from, to));
            }
        }
        Ok(())
    }

    /// Whether the minute of the week (0 = Monday 00:00 UTC) falls in one of the spans.
    pub fn contains(&self, minute_of_week: u32) -> bool {
        let day = u8::try_from(minute_of_week / (24 * 60) + 1).unwrap_or(0);
        let minute = minute_of_week % (24 * 60);
        self.spans.iter().any(|s| {
            s.weekdays.contains(&day) && s.range().is_some_and(|(f, t)| f <= minute && minute < t)
        })
    }

    /// The minutes of the week the window covers (spans do not overlap).
    pub fn minutes_per_week(&self) -> u32 {
        self.spans
            .iter()
            .filter_map(|s| {
                let (f, t) = s.range()?;
                Some((t - f) * u32::try_from(s.weekdays.len()).unwrap_or(0))
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deepseek_peak() -> TimeWindow {
        serde_json::from_str(
            r#"{"name": "peak", "spans": [
                {"weekdays": [1, 2, 3, 4, 5], "from": "01:00", "to": "04:00"},
                {"weekdays": [1, 2, 3, 4, 5], "from": "06:00", "to": "10:00"}]}"#,
        )
        .expect("a window")
    }

    #[test]
    fn deepseek_peak_covers_35_hours_of_the_week() {
        let w = deepseek_peak();
        assert_eq!(w.check(), Ok(()));
        assert_eq!(w.minutes_per_week(), 35 * 60);
        // Tuesday 02:30 UTC is in; Tuesday 12:00 and Saturday 02:30 are out; 04:00 is the end.
        let at = |day: u32, h: u32, m: u32| (day - 1) * 1440 + h * 60 + m;
        assert!(w.contains(at(2, 2, 30)));
        assert!(!w.contains(at(2, 12, 0)));
        assert!(!w.contains(at(6, 2, 30)));
        assert!(!w.contains(at(1, 4, 0)));
        assert!(w.contains(at(5, 9, 59)));
    }

    #[test]
    fn bad_windows_are_refused_with_the_reason() {
        let mut w = deepseek_peak();
        w.spans[1].from = "03:00".into();
        assert!(w.check().expect_err("overlap").contains("overlaps"));
        let mut w = deepseek_peak();
        w.spans[0].weekdays = vec![2, 1];
        assert!(w.check().expect_err("order").contains("ascending"));
        let mut w = deepseek_peak();
        w.spans[0].to = "24:01".into();
        assert!(w.check().expect_err("time").contains("HH:MM"));
        w.spans.clear();
        assert!(w.check().is_err());
        assert!(serde_json::from_str::<TimeWindow>(r#"{"name": "night", "spans": []}"#).is_err());
    }

    #[test]
    fn regions_follow_the_pattern() {
        for good in ["eu", "us-gov", "eu-west-1", "apac", "regional"] {
            assert_eq!(
                good.parse::<Region>().map(|r| r.to_string()),
                Ok(good.into())
            );
        }
        for bad in [
            "",
            "e",
            "EU",
            "1eu",
            "eu_west",
            "a-very-long-region-name-over",
        ] {
            assert!(bad.parse::<Region>().is_err(), "{bad}");
        }
    }
}
