//! Where a webhook may be sent (docs/webhooks.md, "Safety"): an `https` URL
//! whose host resolves only to public addresses. Loopback, private, shared
//! (carrier-grade NAT), link-local (cloud metadata services such as
//! 169.254.169.254 live there), unique-local, multicast, reserved and
//! unspecified addresses are refused, at registration and again at every
//! attempt (DNS answers can change), unless the operator allows them
//! (`pricing serve --webhook-allow-private`, for tests and private
//! deployments), which also allows plain `http`.
//!
//! At an attempt the check is the HTTP client's DNS resolver itself
//! ([`GuardedResolver`]), so the addresses checked are the ones connected
//! to; a URL whose host is an address is checked before the request, since
//! no resolver is asked for it. Redirects are not followed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::time::Duration;

use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The longest URL a subscription may have, in characters.
pub const MAX_URL_CHARS: usize = 2048;
/// How long resolving a destination's host may take.
const RESOLVE_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a destination is refused, for the client (registration) or the
/// delivery record (an attempt).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refused {
    #[error("the URL cannot be read: {0}")]
    Malformed(String),
    #[error("the URL must use https{}", if *.allow_http { " (or http)" } else { "" })]
    Scheme { allow_http: bool },
    #[error("the URL must not carry a user name or password")]
    Credentials,
    #[error("the URL's host {0} does not resolve")]
    Unresolved(String),
    #[error(
        "the URL's host resolves to {addr}, a {kind} address; only public addresses are allowed"
    )]
    NotPublic { addr: IpAddr, kind: &'static str },
}

/// The kind of address that is refused, or `None` for a public one.
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_private() => "private",
        _ if ip.is_link_local() => "link-local (metadata)",
        _ if ip.is_unspecified() || a == 0 => "unspecified",
        (100, 64..=127, _) => "shared (carrier-grade NAT)",
        (192, 0, 0) => "IETF protocol assignment",
        (198, 18..=19, _) => "benchmarking",
        _ if ip.is_documentation() => "documentation",
        _ if ip.is_multicast() => "multicast",
        _ if ip.is_broadcast() || a >= 240 => "reserved",
        _ => return None,
    })
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    // IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses
    // reach the IPv4 address inside.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return non_public_v4(v4);
    }
    let s = ip.segments();
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        let [a, b] = s[6].to_be_bytes();
        let [c, d] = s[7].to_be_bytes();
        return non_public_v4(Ipv4Addr::new(a, b, c, d));
    }
    Some(match s[0] {
        _ if ip.is_loopback() => "loopback",
        _ if ip.is_unspecified() => "unspecified",
        0xfe80..=0xfebf => "link-local",
        0xfc00..=0xfdff => "unique-local (private)",
        0xff00..=0xffff => "multicast",
        0x2001 if s[1] == 0x0db8 => "documentation",
        // the rest of ::/8 (IPv4-compatible and other reserved forms)
        0 => "reserved",
        _ => return None,
    })
}

/// Checks one resolved address.
fn check(ip: IpAddr, allow_private: bool) -> Result<(), Refused> {
    match non_public(ip) {
        Some(kind) if !allow_private => Err(Refused::NotPublic { addr: ip, kind }),
        _ => Ok(()),
    }
}

/// The host of a URL as an address, when it is one (`[::1]` unbracketed).
fn ip_host(url: &Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
        .parse()
        .ok()
}

/// Reads and checks a URL as given at registration, without resolving it:
/// its form, scheme and credentials, and its host when that is an address.
pub fn parse(url: &str, allow_private: bool) -> Result<Url, Refused> {
    let parsed = Url::parse(url).map_err(|e| Refused::Malformed(e.to_string()))?;
    match parsed.scheme() {
        "https" => {}
        "http" if allow_private => {}
        _ => {
            return Err(Refused::Scheme {
                allow_http: allow_private,
            });
        }
    }
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(Refused::Credentials);
    }
    if parsed.host_str().is_none_or(str::is_empty) {
        return Err(Refused::Malformed("it has no host".into()));
    }
    if let Some(ip) = ip_host(&parsed) {
        check(ip, allow_private)?;
    }
    Ok(parsed)
}

/// Resolves `host` and checks every address it has.
async fn resolve_checked(host: &str, allow_private: bool) -> Result<Vec<SocketAddr>, Refused> {
    let unresolved = || Refused::Unresolved(crate::error::excerpt(host));
    let addrs: Vec<SocketAddr> =
        tokio::time::timeout(RESOLVE_TIMEOUT, tokio::net::lookup_host((host, 0)))
            .await
            .map_err(|_| unresolved())?
            .map_err(|_| unresolved())?
            .collect();
    if addrs.is_empty() {
        return Err(unresolved());
    }
    for addr in &addrs {
        check(addr.ip(), allow_private)?;
    }
    Ok(addrs)
}

/// The registration check: [`parse`], then the host resolved and every
/// address it has checked.
pub async fn check_url(url: &str, allow_private: bool) -> Result<Url, Refused> {
    let parsed = parse(url, allow_private)?;
    if ip_host(&parsed).is_none()
        && let Some(host) = parsed.host_str()
    {
        resolve_checked(host, allow_private).await?;
    }
    Ok(parsed)
}

/// The delivery client's resolver: the system's, refusing a host with any
/// address that is not allowed.
#[derive(Debug, Clone, Copy)]
pub struct GuardedResolver {
    pub allow_private: bool,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allow_private = self.allow_private;
        Box::pin(async move {
            let addrs = resolve_checked(name.as_str(), allow_private).await?;
            Ok(Box::new(addrs.into_iter()) as Addrs)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ip: &str) -> Option<&'static str> {
        non_public(ip.parse().expect("address"))
    }

    #[test]
    fn loopback_private_link_local_and_metadata_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "127.1.2.3",
            "10.0.0.1",
            "172.16.5.4",
            "192.168.1.1",
            "169.254.169.254",
            "100.100.100.200",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fd00:ec2::254",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "ff02::1",
        ] {
            assert!(kind(ip).is_some(), "{ip} is refused");
        }
        assert_eq!(kind("169.254.169.254"), Some("link-local (metadata)"));
        assert_eq!(kind("127.0.0.1"), Some("loopback"));
        for ip in [
            "93.184.215.14",
            "1.1.1.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
        ] {
            assert_eq!(kind(ip), None, "{ip} is public");
        }
    }

    #[test]
    fn urls_need_https_no_credentials_and_a_public_address_host() {
        assert!(parse("https://hooks.example.com/pricing", false).is_ok());
        assert_eq!(
            parse("http://hooks.example.com/", false),
            Err(Refused::Scheme { allow_http: false })
        );
        assert!(parse("http://hooks.example.com/", true).is_ok());
        assert_eq!(
            parse("https://user:pw@hooks.example.com/", false),
            Err(Refused::Credentials)
        );
        assert!(matches!(
            parse("https://127.0.0.1:8443/", false),
            Err(Refused::NotPublic {
                kind: "loopback",
                ..
            })
        ));
        assert!(matches!(
            parse("https://[::1]/", false),
            Err(Refused::NotPublic { .. })
        ));
        assert!(matches!(
            parse("https://169.254.169.254/latest/meta-data", false),
            Err(Refused::NotPublic { .. })
        ));
        assert!(parse("http://127.0.0.1:9/", true).is_ok());
        assert!(matches!(
            parse("not a url", false),
            Err(Refused::Malformed(_))
        ));
        assert!(matches!(
            parse("ftp://example.com/", false),
            Err(Refused::Scheme { .. })
        ));
    }

    #[tokio::test]
    async fn a_name_that_resolves_to_loopback_is_refused_unless_allowed() {
        assert!(matches!(
            check_url("https://localhost:8443/hook", false).await,
            Err(Refused::NotPublic { .. })
        ));
        assert!(check_url("https://localhost:8443/hook", true).await.is_ok());
        let resolved = GuardedResolver {
            allow_private: false,
        }
        .resolve("localhost".parse().expect("name"))
        .await;
        assert!(resolved.is_err());
    }
}
