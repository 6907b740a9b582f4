//! The words around the panels: each panel's line under the title and its
//! footer. Every counter says what it counts and on which side (the
//! server *sent* 9 Adjustments, the client *received* 7: the difference
//! is downlink loss and responses matching no SavedMove). Pure: tested
//! natively.

use super::corrections::Group;
use sim::cmc::wire::ServerTotals;
use sim::{Client, SmoothingMode};

/// The Predicted panel's line: who drives, or the run's banner.
pub fn predicted_sub(banner: Option<&str>, bot_driving: bool) -> String {
    match banner {
        Some(b) => b.to_owned(),
        None if bot_driving => "bot driving · click, then WASD / arrows take over".to_owned(),
        None => "you drive · Space dash · F fire (rollback) · B bot".to_owned(),
    }
}

/// The Predicted panel's footer.
pub fn predicted_foot(client: &Client, smoothing: SmoothingMode) -> String {
    let st = client.state();
    let offset = (client.drawn_position() - st.position).length();
    format!(
        "t {:.2} s · {:.0} cm/s · {} unacked · mesh offset {offset:.1} cm ({})",
        f64::from(client.time_stamp().0) / 1000.0,
        st.velocity.length(),
        client.saved_moves().len(),
        smoothing.name()
    )
}

/// The Authoritative panel's footer: the server's own counters.
pub fn authoritative_foot(t: &ServerTotals) -> String {
    format!(
        "server sent {} acks, {} adjustments · {} forced position updates (no move for 0.25 s)",
        t.acks, t.adjustments, t.forced_updates
    )
}

/// The Replayed panel's line: which correction is shown and why it
/// happened.
pub fn replayed_sub(shown: Option<(&Group, usize, usize)>) -> String {
    match shown {
        Some((g, i, n)) => {
            let r = &g.lead.record;
            format!(
                "correction {i} of {n} (#{} received) · {} · {} moves replayed",
                g.lead.number,
                r.reason.label(),
                r.moves_replayed
            )
        }
        None => "no adjustment received yet".to_owned(),
    }
}

/// The Replayed panel's footer: the error judged, what the correction did,
/// and the redundant ones of its burst.
pub fn replayed_foot(group: Option<&Group>) -> String {
    let Some(g) = group else {
        return String::new();
    };
    let r = &g.lead.record;
    let did = if g.lead.redundant {
        format!(
            "redundant: {:.1} cm on arrival (already fixed)",
            r.residual_cm
        )
    } else {
        format!("moved the character {:.1} cm", r.residual_cm)
    };
    let burst = match g.followers.len() {
        0 => String::new(),
        n => format!(
            " · +{n} redundant after it (≤ {:.1} cm)",
            g.followers_max_residual_cm()
        ),
    };
    format!("server saw {:.1} cm · {did}{burst}", r.error_cm)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::corrections::Entry;
    use sim::{AdjustmentReason, CorrectionRecord, TimeStamp, Vec2};

    fn entry(number: u64, residual_cm: f32, redundant: bool) -> Entry {
        Entry {
            record: CorrectionRecord {
                time_stamp: TimeStamp(100),
                error_cm: 48.2,
                residual_cm,
                snap: Vec2::ZERO,
                discarded: vec![],
                replayed: vec![],
                moves_replayed: 6,
                reason: AdjustmentReason::PositionError,
            },
            number,
            redundant,
        }
    }

    #[test]
    fn server_counters_say_they_were_sent_by_the_server() {
        let t = ServerTotals {
            moves: 160,
            acks: 45,
            adjustments: 9,
            forced_updates: 2,
            ..ServerTotals::default()
        };
        assert_eq!(
            authoritative_foot(&t),
            "server sent 45 acks, 9 adjustments · 2 forced position updates (no move for 0.25 s)"
        );
    }

    #[test]
    fn the_replayed_panel_names_the_correction_that_moved_the_character() {
        let g = Group {
            lead: entry(42, 46.0, false),
            followers: vec![entry(43, 0.6, true), entry(44, 0.2, true)],
        };
        assert_eq!(
            replayed_sub(Some((&g, 3, 7))),
            "correction 3 of 7 (#42 received) · error above threshold · 6 moves replayed"
        );
        assert_eq!(
            replayed_foot(Some(&g)),
            "server saw 48.2 cm · moved the character 46.0 cm · +2 redundant after it (≤ 0.6 cm)"
        );
    }
}
