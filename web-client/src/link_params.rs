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
//! | `room-recording`, `match-recording` | a saved recording's id: the first of them opens, another is named ignored |
//!
//! A link without any of them (nor a scenario) opens on the opening
//! (`crate::controls::opening`).

/// The parameters that open a recording; a link opens the first one it
/// names ([`opened_recording`]).
pub const RECORDING_PARAMS: [&str; 2] = ["room-recording", "match-recording"];

/// The recording parameter a link opens, and its value: the first of
/// [`RECORDING_PARAMS`] among `pairs`, in the order they came.
pub fn opened_recording(pairs: &[(String, String)]) -> Option<(&str, &str)> {
    pairs
        .iter()
        .find(|(name, _)| RECORDING_PARAMS.contains(&name.as_str()))
        .map(|(name, value)| (name.as_str(), value.as_str()))
}

/// What was ignored among `pairs` (name, value), one phrase each, in the
/// order they came: "mode=banana (only mode=local)".
pub fn ignored(pairs: &[(String, String)]) -> Vec<String> {
    let opened = opened_recording(pairs);
    pairs
        .iter()
        .enumerate()
        .filter_map(|(i, (name, value))| {
            let first = pairs
                .iter()
                .position(|(n, _)| RECORDING_PARAMS.contains(&n.as_str()));
            let opens = |(n, v): (&str, &str)| format!("a link opens one recording: {n}={v}");
            let why = match name.as_str() {
                n if RECORDING_PARAMS.contains(&n) && Some(i) != first => {
                    return Some(format!("{name}={value} ({})", opens(opened?)));
                }
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
    fn a_link_opens_its_first_recording_and_names_any_other_ignored() {
        let both = pairs(&[
            ("match-recording", "AAAAAAAAAAAA"),
            ("room-recording", "BBBBBBBBBBBB"),
        ]);
        assert_eq!(
            opened_recording(&both),
            Some(("match-recording", "AAAAAAAAAAAA"))
        );
        assert_eq!(
            ignored(&both),
            ["room-recording=BBBBBBBBBBBB (a link opens one recording: match-recording=AAAAAAAAAAAA)"]
        );
        let twice = pairs(&[("room-recording", "A"), ("room-recording", "B")]);
        assert_eq!(opened_recording(&twice), Some(("room-recording", "A")));
        assert_eq!(ignored(&twice).len(), 1);
        assert!(ignored(&pairs(&[("room-recording", "A")])).is_empty());
        assert_eq!(opened_recording(&pairs(&[("room", "x")])), None);
    }

    #[test]
    fn only_a_bare_link_opens_on_the_opening() {
        assert!(opens_on_opening(&[], false));
        assert!(!opens_on_opening(&[], true));
        assert!(!opens_on_opening(&pairs(&[("link", "clean")]), false));
        assert!(!opens_on_opening(&pairs(&[("mode", "local")]), false));
    }
}
