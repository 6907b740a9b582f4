//! The client's address, behind a reverse proxy or not.
//!
//! The per-address session cap ([`crate::Limits::max_connections_per_ip`])
//! needs the client's address. Behind nginx every connection comes from
//! nginx, and the client's address is in `X-Forwarded-For`, to which each
//! proxy appends the address it was connected from
//! (`$proxy_add_x_forwarded_for`). Anyone can send that header, so the
//! relay reads it only from a peer in its trusted-proxy list
//! (`--trusted-proxy`), and then as nginx's realip module does with
//! `real_ip_recursive on`: the client is the rightmost address in the
//! header that is not itself a trusted proxy (all trusted: the leftmost).
//! With no list — the default — the header is ignored and the peer's
//! address counts, so a client cannot pick its own address.

use crate::AppState;
use axum::extract::{ConnectInfo, FromRequestParts};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use ipnet::IpNet;
use std::net::{IpAddr, SocketAddr};

/// The header proxies append to.
const X_FORWARDED_FOR: &str = "x-forwarded-for";

/// Networks whose connections may say who the client is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

/// A `--trusted-proxy` entry that is neither an address nor a network.
#[derive(Debug, thiserror::Error)]
#[error("{0:?} is not an IP address or network (e.g. 127.0.0.1, 10.0.0.0/8, ::1/128)")]
pub struct BadProxy(String);

impl std::str::FromStr for TrustedProxies {
    type Err = BadProxy;

    /// A comma-separated list of addresses and networks in CIDR form;
    /// empty = trust no one.
    fn from_str(s: &str) -> Result<TrustedProxies, BadProxy> {
        s.split(',')
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .map(|t| {
                t.parse::<IpNet>()
                    .or_else(|_| t.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| BadProxy(t.to_owned()))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl std::fmt::Display for TrustedProxies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let nets: Vec<String> = self.0.iter().map(ToString::to_string).collect();
        f.write_str(&nets.join(","))
    }
}

impl TrustedProxies {
    /// `true` when no proxy is trusted (the header is never read).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Whether `ip` is one of the trusted proxies.
    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// The client behind a connection from `peer` carrying `headers`.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> IpAddr {
        if !self.trusts(peer) {
            return peer;
        }
        // Every header line, in order, as one list.
        let hops: Vec<&str> = headers
            .get_all(X_FORWARDED_FOR)
            .iter()
            .filter_map(|v| v.to_str().ok())
            .flat_map(|v| v.split(','))
            .map(str::trim)
            .collect();
        let mut client = peer;
        for hop in hops.iter().rev() {
            // A trusted proxy writes addresses; anything else came from
            // the untrusted side before it: the proxy reached last stands.
            let Some(ip) = parse_hop(hop) else { break };
            client = ip;
            if !self.trusts(ip) {
                break;
            }
        }
        client
    }
}

/// An `X-Forwarded-For` entry: an address, possibly with a port
/// (`1.2.3.4:5`, `[::1]:5`).
fn parse_hop(hop: &str) -> Option<IpAddr> {
    hop.parse::<IpAddr>()
        .ok()
        .or_else(|| hop.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

/// The client's address (see the module docs); needs the server's
/// `ConnectInfo<SocketAddr>`, as [`crate::serve`] provides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ClientAddr(pub(crate) IpAddr);

impl FromRequestParts<AppState> for ClientAddr {
    type Rejection = (StatusCode, &'static str);

    async fn from_request_parts(
        parts: &mut Parts,
        state: &AppState,
    ) -> Result<ClientAddr, Self::Rejection> {
        let ConnectInfo(peer) = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .copied()
            .ok_or((
                StatusCode::INTERNAL_SERVER_ERROR,
                "no peer address: serve with connect info",
            ))?;
        let proxies = &state.inner.deployment.trusted_proxies;
        Ok(ClientAddr(proxies.client(peer.ip(), &parts.headers)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xff(values: &[&str]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for v in values {
            h.append(X_FORWARDED_FOR, v.parse().unwrap());
        }
        h
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn without_trusted_proxies_the_header_is_ignored() {
        let none = TrustedProxies::default();
        assert!(none.is_empty());
        assert_eq!(
            none.client(ip("203.0.113.7"), &xff(&["1.1.1.1"])),
            ip("203.0.113.7")
        );
    }

    #[test]
    fn an_untrusted_peer_cannot_pick_its_address() {
        let lo: TrustedProxies = "127.0.0.1".parse().unwrap();
        assert_eq!(
            lo.client(ip("203.0.113.7"), &xff(&["127.0.0.9"])),
            ip("203.0.113.7")
        );
    }

    #[test]
    fn behind_a_trusted_proxy_the_rightmost_untrusted_hop_is_the_client() {
        let p: TrustedProxies = "127.0.0.1/32, 10.0.0.0/8".parse().unwrap();
        let nginx = ip("127.0.0.1");
        // nginx appended the client's address to what the client claimed.
        assert_eq!(
            p.client(nginx, &xff(&["6.6.6.6, 198.51.100.4"])),
            ip("198.51.100.4")
        );
        // Two trusted hops (an edge proxy at 10.1.2.3, then nginx).
        assert_eq!(
            p.client(nginx, &xff(&["198.51.100.4", "10.1.2.3"])),
            ip("198.51.100.4")
        );
        // Only trusted hops: the leftmost.
        assert_eq!(
            p.client(nginx, &xff(&["10.9.9.9, 10.1.2.3"])),
            ip("10.9.9.9")
        );
        // No header: the proxy itself.
        assert_eq!(p.client(nginx, &HeaderMap::new()), nginx);
        // Garbage left of trusted hops: the last trusted hop reached.
        assert_eq!(
            p.client(nginx, &xff(&["nonsense, 10.1.2.3"])),
            ip("10.1.2.3")
        );
        // Ports and IPv6.
        assert_eq!(
            p.client(nginx, &xff(&["[2001:db8::1]:443"])),
            ip("2001:db8::1")
        );
        assert_eq!(
            p.client(nginx, &xff(&["198.51.100.4:5000"])),
            ip("198.51.100.4")
        );
    }

    #[test]
    fn ipv4_mapped_peers_match_ipv4_networks_and_bad_entries_are_refused() {
        let p: TrustedProxies = "127.0.0.0/8".parse().unwrap();
        assert_eq!(
            p.client(ip("::ffff:127.0.0.1"), &xff(&["198.51.100.4"])),
            ip("198.51.100.4")
        );
        assert!("127.0.0.1, nginx".parse::<TrustedProxies>().is_err());
        assert_eq!(
            "".parse::<TrustedProxies>().unwrap(),
            TrustedProxies::default()
        );
        assert_eq!(p.to_string(), "127.0.0.0/8");
    }
}
