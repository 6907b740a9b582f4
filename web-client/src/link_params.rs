//! The page's own `?` parameters (issue #24, small things): which it
//! knows, what each takes, and — instead of ignoring a bad one silently —
//! a line naming each it ignored. Pure: tested natively.
//!
//! | parameter | takes |
//! |---|---|
//! | `mode` | `local`: run in the page instead of on the relay |
//! | `seed` | an unsigned integer: the in-page run's seed |
//! | `room` | a room name (checked where rooms are: `crate::room::rules`) |
//! | `model` | `cmc` or `rollback`: the model a new room runs |
//! | `watch` | `1`: watch the rollback room's match (a spectator, issue 22) |
//! | `link` | `clean`: open on the default link, not the opening |
//! | `tour` | a stop of the guided tour, from 1, or its key (`sim::tour::parse`) |
//!
//! A link without any of them (nor a scenario) opens on the opening
//! (`crate::controls::opening`).

/// What was ignored among `pairs` (name, value), one phrase each, in the
/// order they came: "mode=banana (only mode=local)".
pub fn ignored(pairs: &[(String, String)]) -> Vec<String> {
    pairs
        .iter()
        .filter_map(|(name, value)| {
            let why = match name.as_str() {
                "mode" if value != "local" => "only mode=local",
                "seed" if value.parse::<u64>().is_err() => "not a whole number ≥ 0: a random seed",
                "model" if !matches!(value.as_str(), "cmc" | "rollback") => {
                    "only model=cmc or model=rollback"
                }
                "link" if value != "clean" => "only link=clean",
                "watch" if value != "1" => "only watch=1",
                "tour" if sim::tour::parse(value).is_none() => "no such stop of the tour",
                "mode" | "seed" | "room" | "model" | "link" | "tour" | "watch"
                | "room-recording" | "match-recording" => return None,
                _ => "not a parameter of this page",
            };
            Some(format!("{name}={value} ({why})"))
        })
        .collect()
}

/// Whether the page opens on the opening: no parameter at all (`pairs`
/// empty) and no scenario (`scenario`: a `#s=` fragment or an `/s/ID`
/// path).
pub fn opens_on_opening(pairs: &[(String, String)], scenario: bool) -> bool {
    pairs.is_empty() && !scenario
}

/// The line the page shows for `ignored`, if anything was.
pub fn note(ignored: &[String]) -> Option<String> {
    (!ignored.is_empty()).then(|| format!("Ignored in the link: {}.", ignored.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn bad_and_unknown_parameters_are_named_with_why() {
        assert!(ignored(&pairs(&[("mode", "local"), ("seed", "42"), ("room", "x")])).is_empty());
        assert!(ignored(&pairs(&[
            ("room", "x"),
            ("model", "rollback"),
            ("watch", "1")
        ]))
        .is_empty());
        assert_eq!(
            ignored(&pairs(&[("watch", "yes")])),
            ["watch=yes (only watch=1)"]
        );
        let bad = ignored(&pairs(&[
            ("mode", "banana"),
            ("seed", "abc"),
            ("rtt", "200"),
        ]));
        assert_eq!(
            note(&bad).as_deref(),
            Some(
                "Ignored in the link: mode=banana (only mode=local), seed=abc (not a whole \
                 number ≥ 0: a random seed), rtt=200 (not a parameter of this page)."
            )
        );
        assert_eq!(note(&[]), None);
        assert_eq!(
            ignored(&pairs(&[("link", "clean"), ("link", "dirty")])),
            ["link=dirty (only link=clean)"]
        );
    }

    #[test]
    fn only_a_bare_link_opens_on_the_opening() {
        assert!(opens_on_opening(&[], false));
        assert!(!opens_on_opening(&[], true));
        assert!(!opens_on_opening(&pairs(&[("link", "clean")]), false));
        assert!(!opens_on_opening(&pairs(&[("mode", "local")]), false));
    }
}
