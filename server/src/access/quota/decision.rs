//! What the accounting decides, of whom: the subject a request is charged to,
//! the window its headers report, and the decision with the limit that
//! refused it. Plain values, used by every part of the accounting.

use std::net::IpAddr;
use std::sync::{Arc, LazyLock};
use std::time::Duration;

use compact_str::{CompactString, format_compact};
use tokio::sync::oneshot;

/// A subject whose quota is used up is refused without asking the database
/// until its window ends, but asked again after this long in case its plan's
/// quota was raised meanwhile.
pub const EXHAUSTED_RECHECK: Duration = Duration::from_secs(30);

/// Whom a request is charged to, on which plan.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Subject {
    /// Inline up to 24 bytes (an IPv4 address's, a key's): no allocation per
    /// anonymous request, none per count a shard keeps to write back.
    id: CompactString,
    plan: Arc<str>,
}

impl Subject {
    /// An anonymous caller, by address: IPv4 per address, IPv6 per /64 (one
    /// customer's network), an IPv4-mapped IPv6 address as the IPv4 one.
    pub fn anonymous(ip: IpAddr) -> Self {
        // Shared: a new one per request would cost an allocation each.
        static ANONYMOUS: LazyLock<Arc<str>> = LazyLock::new(|| Arc::from("anonymous"));
        Self {
            id: address_id(ip),
            plan: ANONYMOUS.clone(),
        }
    }

    /// The keys an address asks for (POST /api/v1/keys), on plan
    /// `key_requests`: counted per address as [`Self::anonymous`] counts it.
    pub fn key_requests(ip: IpAddr) -> Self {
        Self {
            id: format_compact!("keys-for:{}", address_id(ip)),
            plan: Arc::from(KEY_REQUESTS_PLAN),
        }
    }

    /// A key holder, by key id.
    pub fn key(id: i64, plan: Arc<str>) -> Self {
        Self {
            id: format_compact!("key:{id}"),
            plan,
        }
    }

    /// The counter name: `ip:...`, `keys-for:ip:...` or `key:<id>`.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// The plan whose limits apply.
    pub fn plan(&self) -> &str {
        &self.plan
    }
}

/// The plan counting the keys an address asks for (migrations/V18).
pub const KEY_REQUESTS_PLAN: &str = "key_requests";

/// An address as the counters name it: IPv4 per address, IPv6 per /64, an
/// IPv4-mapped IPv6 address as the IPv4 one.
fn address_id(ip: IpAddr) -> CompactString {
    match ip {
        IpAddr::V4(v4) => format_compact!("ip:{v4}"),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => format_compact!("ip:{v4}"),
            None => {
                let s = v6.segments();
                let net = std::net::Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0);
                format_compact!("ip:{net}/64")
            }
        },
    }
}

/// The quota window a response reports in its `X-RateLimit-*` headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window {
    /// The plan's quota per window.
    pub limit: u32,
    /// Requests left in the current window.
    pub remaining: u32,
    /// Unix seconds at which the current window ends and the quota is whole again.
    pub reset: i64,
}

/// Which limit refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// The quota of the current window is used up.
    Quota,
    /// Too many requests in too short a time.
    Burst,
}

/// The outcome of [`Accountant::admit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Counted and admitted; no window for a plan without quota.
    Admitted(Option<Window>),
    /// Refused: wait `retry_after` seconds.
    Refused {
        /// Which limit.
        by: Refusal,
        /// Seconds to wait.
        retry_after: u32,
        /// The current window, if the plan has a quota.
        window: Option<Window>,
    },
    /// Admitted without counting: the plan has no limits.
    Unmetered,
    /// Admitted without counting: the accounting failed (fail open).
    Unaccounted,
}

impl Decision {
    /// Whether the request may go ahead.
    pub fn is_admitted(&self) -> bool {
        !matches!(self, Self::Refused { .. })
    }

    /// The window to report, if any.
    pub fn window(&self) -> Option<Window> {
        match self {
            Self::Admitted(window) | Self::Refused { window, .. } => *window,
            Self::Unmetered | Self::Unaccounted => None,
        }
    }
}

pub(super) type Waiters = Vec<oneshot::Sender<Decision>>;

/// Now, in Unix seconds.
pub(super) fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anonymous_subjects_group_ipv6_by_64_and_unmap_ipv4() {
        let ip = |s: &str| s.parse::<IpAddr>().expect("ip");
        assert_eq!(Subject::anonymous(ip("203.0.113.9")).id(), "ip:203.0.113.9");
        assert_eq!(
            Subject::anonymous(ip("::ffff:203.0.113.9")).id(),
            "ip:203.0.113.9"
        );
        assert_eq!(
            Subject::anonymous(ip("2001:db8:1:2:aaaa::1")).id(),
            Subject::anonymous(ip("2001:db8:1:2:bbbb::2")).id()
        );
        assert_eq!(
            Subject::anonymous(ip("2001:db8:1:2::1")).id(),
            "ip:2001:db8:1:2::/64"
        );
        assert_eq!(Subject::anonymous(ip("::1")).plan(), "anonymous");
    }
}
