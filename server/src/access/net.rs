//! Client addresses: the socket peer, or `X-Forwarded-For` when the peer is a trusted proxy.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::str::FromStr;

/// A CIDR block such as `10.0.0.0/8` or `::1/128`; a bare address means a single host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    network: IpAddr,
    prefix: u8,
}

/// This machine: the IPv4 and IPv6 loopback blocks.
pub const LOOPBACK: [Cidr; 2] = [
    Cidr {
        network: IpAddr::V4(Ipv4Addr::new(127, 0, 0, 0)),
        prefix: 8,
    },
    Cidr {
        network: IpAddr::V6(Ipv6Addr::LOCALHOST),
        prefix: 128,
    },
];

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.network, self.prefix)
    }
}

impl Cidr {
    /// Whether `ip` lies inside this block.
    pub fn contains(&self, ip: IpAddr) -> bool {
        match (self.network, ip) {
            (IpAddr::V4(net), IpAddr::V4(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V6(ip)) => {
                prefix_eq(&net.octets(), &ip.octets(), self.prefix)
            }
            (IpAddr::V6(net), IpAddr::V4(ip)) => net.to_ipv4_mapped().is_some_and(|net| {
                self.prefix >= 96 && prefix_eq(&net.octets(), &ip.octets(), self.prefix - 96)
            }),
            (IpAddr::V4(_), IpAddr::V6(ip)) => ip
                .to_ipv4_mapped()
                .is_some_and(|ip| self.contains(IpAddr::V4(ip))),
        }
    }
}

fn prefix_eq(a: &[u8], b: &[u8], prefix: u8) -> bool {
    let full = usize::from(prefix / 8);
    let rest = prefix % 8;
    if a[..full] != b[..full] {
        return false;
    }
    if rest == 0 {
        return true;
    }
    let mask = 0xffu8 << (8 - rest);
    (a[full] & mask) == (b[full] & mask)
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (addr, prefix) = match s.split_once('/') {
            Some((addr, prefix)) => (addr, Some(prefix)),
            None => (s, None),
        };
        let network: IpAddr = addr
            .trim()
            .parse()
            .map_err(|_| format!("`{s}` is not an IP address or CIDR block (e.g. 10.0.0.0/8)"))?;
        let max = if network.is_ipv4() { 32 } else { 128 };
        let prefix = match prefix {
            Some(p) => p
                .trim()
                .parse::<u8>()
                .ok()
                .filter(|p| *p <= max)
                .ok_or_else(|| format!("`{s}`: the prefix length must be 0-{max}"))?,
            None => max,
        };
        Ok(Self { network, prefix })
    }
}

/// The client's address: the peer, unless the peer is a trusted proxy, in which case
/// the right-most untrusted address of `X-Forwarded-For` (the left-most one when
/// every entry is trusted). An entry may carry a port (`203.0.113.9:5555`,
/// `[2001:db8::1]:443`). `Err(entry)` when the entry that would name the client
/// is not an address: such a request is refused, never counted as the proxy's own.
pub fn client_ip<'h>(
    peer: IpAddr,
    forwarded_for: Option<&'h str>,
    trusted: &[Cidr],
) -> Result<IpAddr, &'h str> {
    let is_trusted = |ip: IpAddr| trusted.iter().any(|c| c.contains(ip));
    if !is_trusted(peer) {
        return Ok(peer);
    }
    let Some(header) = forwarded_for else {
        return Ok(peer);
    };
    let mut client = peer;
    for hop in header.rsplit(',').map(str::trim) {
        client = forwarded_address(hop).ok_or(hop)?;
        if !is_trusted(client) {
            break;
        }
    }
    Ok(client)
}

/// One `X-Forwarded-For` entry: an IP address, with or without a port.
fn forwarded_address(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|a| a.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("test address")
    }

    #[test]
    fn cidr_blocks_match_their_members_only() {
        let block: Cidr = "10.1.0.0/16".parse().expect("cidr");
        assert!(block.contains(ip("10.1.200.3")));
        assert!(!block.contains(ip("10.2.0.1")));
        let odd: Cidr = "192.168.1.128/25".parse().expect("cidr");
        assert!(odd.contains(ip("192.168.1.200")));
        assert!(!odd.contains(ip("192.168.1.100")));
        let host: Cidr = "::1".parse().expect("cidr");
        assert!(host.contains(ip("::1")));
        assert!("10.0.0.0/33".parse::<Cidr>().is_err());
        assert!("nonsense".parse::<Cidr>().is_err());
    }

    #[test]
    fn forwarded_for_is_honoured_only_from_trusted_peers() {
        let trusted = [
            "127.0.0.1".parse().expect("cidr"),
            "10.0.0.0/8".parse().expect("cidr"),
        ];
        let xff = Some("203.0.113.9, 10.0.0.7");
        assert_eq!(
            client_ip(ip("127.0.0.1"), xff, &trusted),
            Ok(ip("203.0.113.9"))
        );
        assert_eq!(
            client_ip(ip("198.51.100.1"), xff, &trusted),
            Ok(ip("198.51.100.1"))
        );
        assert_eq!(
            client_ip(ip("127.0.0.1"), None, &trusted),
            Ok(ip("127.0.0.1"))
        );
        assert_eq!(
            client_ip(ip("198.51.100.1"), Some("garbage"), &trusted),
            Ok(ip("198.51.100.1"))
        );
    }

    #[test]
    fn a_forwarded_entry_that_is_not_an_address_is_an_error_not_the_proxy() {
        let trusted = ["127.0.0.1".parse().expect("cidr")];
        assert_eq!(
            client_ip(ip("127.0.0.1"), Some("notanip"), &trusted),
            Err("notanip")
        );
        assert_eq!(
            client_ip(ip("127.0.0.1"), Some("1.2.3.4:5555"), &trusted),
            Ok(ip("1.2.3.4"))
        );
        assert_eq!(
            client_ip(ip("127.0.0.1"), Some("[2001:db8::1]:443"), &trusted),
            Ok(ip("2001:db8::1"))
        );
        // Only the entry that names the client matters: what a client put
        // further left is its own claim and is not read.
        assert_eq!(
            client_ip(ip("127.0.0.1"), Some("junk, 203.0.113.9"), &trusted),
            Ok(ip("203.0.113.9"))
        );
        assert_eq!(
            client_ip(ip("127.0.0.1"), Some("203.0.113.9, "), &trusted),
            Err("")
        );
    }
}
