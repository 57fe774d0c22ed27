//! Structured logs: readable text for people, JSON lines for log pipelines.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use tracing_subscriber::EnvFilter;

/// How log lines are written to stderr.
#[derive(Debug, Clone, Copy, Default, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable lines with fields.
    #[default]
    Text,
    /// One JSON object per line.
    Json,
}

/// Installs the global subscriber. `RUST_LOG` overrides the default `info` level.
pub fn init(format: LogFormat) {
    let filter = EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| EnvFilter::new("info,tokio_postgres=warn,refinery_core=warn"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    // A second init (several servers in one test process) is harmless: keep the first.
    let _ = match format {
        LogFormat::Text => builder.try_init(),
        LogFormat::Json => builder.json().try_init(),
    };
}

/// A warning that can repeat for every request (a database outage, calls
/// over budget) is written at most once per interval, with the number of
/// occurrences left out since the last line: an outage under load costs a
/// few lines, not one per request.
#[derive(Debug)]
pub struct Throttle {
    every_ms: u64,
    last_ms: AtomicU64,
    suppressed: AtomicU64,
}

impl Throttle {
    /// At most one line per `every`.
    pub const fn new(every: Duration) -> Self {
        Self {
            every_ms: every.as_millis() as u64,
            last_ms: AtomicU64::new(0),
            suppressed: AtomicU64::new(0),
        }
    }

    /// `Some(occurrences left out since the last line)` when this one is to be
    /// logged, `None` when it is left out.
    pub fn admit(&self) -> Option<u64> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        let last = self.last_ms.load(Ordering::Relaxed);
        if now.saturating_sub(last) >= self.every_ms
            && self
                .last_ms
                .compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed)
                .is_ok()
        {
            return Some(self.suppressed.swap(0, Ordering::Relaxed));
        }
        self.suppressed.fetch_add(1, Ordering::Relaxed);
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_throttle_lets_one_line_through_per_interval_and_counts_the_rest() {
        let throttle = Throttle::new(Duration::from_secs(3600));
        assert_eq!(throttle.admit(), Some(0));
        assert_eq!(throttle.admit(), None);
        assert_eq!(throttle.admit(), None);
        let always = Throttle::new(Duration::ZERO);
        assert_eq!(always.admit(), Some(0));
        assert_eq!(always.admit(), Some(0));
    }
}
