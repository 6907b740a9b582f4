//! The page clock, a clock for timing loops, and the page's URL query:
//! read by the loop, the transport, the drivers and the benchmarks, so
//! they live apart from all of them.

use sim::SimTime;

/// The page clock (`performance.now()`) as a [`SimTime`].
pub fn now() -> SimTime {
    let ms = web_sys::window()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0);
    SimTime::from_secs_f64(ms / 1000.0)
}

/// A clock for timing loops, ms: `performance.now()` in the browser, a
/// monotonic clock natively.
pub fn clock_ms() -> f64 {
    #[cfg(target_arch = "wasm32")]
    {
        web_sys::window()
            .and_then(|w| w.performance())
            .map_or(0.0, |p| p.now())
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::sync::OnceLock;
        static EPOCH: OnceLock<std::time::Instant> = OnceLock::new();
        EPOCH
            .get_or_init(std::time::Instant::now)
            .elapsed()
            .as_secs_f64()
            * 1000.0
    }
}

/// A `?name=value` parameter of the page's URL.
pub fn query_param(name: &str) -> Option<String> {
    let search = web_sys::window()?.location().search().ok()?;
    web_sys::UrlSearchParams::new_with_str(&search)
        .ok()?
        .get(name)
}

/// Every `?name=value` parameter of the page's URL, in order.
pub fn query_pairs() -> Vec<(String, String)> {
    let Some(search) = web_sys::window().and_then(|w| w.location().search().ok()) else {
        return Vec::new();
    };
    search
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            let decode = |s: &str| {
                js_sys::decode_uri_component(&s.replace('+', " "))
                    .map(String::from)
                    .unwrap_or_else(|_| s.to_owned())
            };
            (decode(n), decode(v))
        })
        .collect()
}

/// Seed for an in-page run: `?seed=N`, else the wall clock.
pub fn local_seed() -> u64 {
    query_param("seed")
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| js_sys::Date::now() as u64)
}
