//! Every control of the page, gathered from the layers that own them:
//! its element id, range, step, unit and default, in the units the page
//! shows. Each owner defines its controls beside the settings they bound
//! (the link: [`crate::net::controls`]; the CMC model's rules and client:
//! [`crate::cmc::controls`]; the rollback model: [`crate::rollback::controls`];
//! a room: [`crate::room::controls`]), and validation derives its ranges
//! from them; the page writes these onto its inputs at start and clamps to
//! them; and `sim/tests/controls_html.rs` fails when `www/index.html` says
//! otherwise. This module stands at the top: it imports every owner, none
//! imports it.
//!
//! A control's wire field may count in finer units than the page shows
//! (loss in tenths of a percent, the error threshold in tenths of a cm):
//! [`Range::scaled`] gives the range in those units.

pub use crate::cmc::controls::{
    ACK_INTERVAL, ADJUSTMENT_INTERVAL, CLOCK_SPEED, COMBINING, DASH_BUG, ERROR_THRESHOLD,
    FIXED_STEP, FORCED_ADJUSTMENT, FORCED_MOVE_LOSS, OLD_MOVES, PREDICTION, PUSH_ZONES,
    RECONCILIATION, SEND_RATE, SPEED_BUFF, TD_RESOLUTION,
};
pub use crate::foundation::control::{Range, Switch};
pub use crate::net::controls::{
    BANDWIDTH, BURST_ENTER, BURST_LENGTH, BURST_LOSS, DIRECTION_JITTER, DIRECTION_LOSS,
    DIRECTION_PREFIXES, DUPLICATE, JITTER, LATENCY, LOSS, PER_DIRECTION, RELIABLE_ORDERED, REORDER,
    RTT, SPIKE_DURATION, SPIKE_EXTRA, SPLIT_DIRECTIONS,
};
pub use crate::rollback::controls::{
    ROLLBACK, ROLLBACK_HOLD_LAST, ROLLBACK_INPUT_BUFFER, ROLLBACK_INPUT_DELAY,
    ROLLBACK_MAX_PREDICTION, ROLLBACK_REDUNDANCY, ROLLBACK_STATE_INTERVAL,
};
pub use crate::room::controls::{
    AMMO_SEQUENCE, MAX_RECORD_TIME, NET_UPDATE_RATE, REWIND, REWIND_CAP,
};

/// Every slider and number input the page shows today, per-direction ones
/// once (see [`PER_DIRECTION`]).
pub const PAGE_RANGES: &[Range] = &[
    RTT,
    LOSS,
    JITTER,
    SPIKE_EXTRA,
    SPIKE_DURATION,
    ACK_INTERVAL,
    ADJUSTMENT_INTERVAL,
    ERROR_THRESHOLD,
    FORCED_ADJUSTMENT,
    SEND_RATE,
    FORCED_MOVE_LOSS,
    CLOCK_SPEED,
    NET_UPDATE_RATE,
    REWIND_CAP,
    MAX_RECORD_TIME,
];

/// Every checkbox the page shows.
pub const PAGE_SWITCHES: &[Switch] = &[
    SPLIT_DIRECTIONS,
    RELIABLE_ORDERED,
    PUSH_ZONES,
    TD_RESOLUTION,
    PREDICTION,
    RECONCILIATION,
    COMBINING,
    OLD_MOVES,
    SPEED_BUFF,
    DASH_BUG,
    FIXED_STEP,
    ROLLBACK,
    REWIND,
    AMMO_SEQUENCE,
];

/// The rollback model's sliders (its section of the page; the tick rate is
/// a select of [`crate::rollback::TickRate::ALL`]).
pub const ROLLBACK_RANGES: &[Range] = &[
    ROLLBACK_REDUNDANCY,
    ROLLBACK_HOLD_LAST,
    ROLLBACK_STATE_INTERVAL,
    ROLLBACK_INPUT_BUFFER,
    ROLLBACK_INPUT_DELAY,
    ROLLBACK_MAX_PREDICTION,
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::client_config::ClientConfig;
    use crate::cmc::client_config::CLIENT_NET_SEND_MOVE_DELTA_TIME;
    use crate::cmc::rules::ServerRules;
    use crate::cmc::server::ServerConfig;
    use crate::net::settings::NetSettings;
    use crate::rollback::{RollbackConfig, TickRate};

    #[test]
    fn the_server_defaults_are_ues_numbers() {
        let ue = ServerConfig::default();
        let rules = ServerRules::default().apply_to(ue);
        assert_eq!(rules, ue, "the controls' defaults are ServerConfig's");
        assert_eq!(ACK_INTERVAL.default, 100.0);
        assert_eq!(ERROR_THRESHOLD.default, 16.0);
    }

    #[test]
    fn the_send_rate_default_is_ues_send_interval() {
        let hz = (1.0 / f64::from(CLIENT_NET_SEND_MOVE_DELTA_TIME)).round();
        assert_eq!(SEND_RATE.default, hz);
        assert_eq!(ClientConfig::default().clock_speed, 1.0);
    }

    #[test]
    fn the_link_defaults_split_the_rtt_evenly() {
        let n = NetSettings::default();
        assert_eq!(f64::from(n.uplink.latency_ms), RTT.default / 2.0);
        assert_eq!(f64::from(n.downlink.latency_ms), LATENCY.default);
        assert_eq!(n.validate(), Ok(()));
    }

    #[test]
    fn the_rollback_prediction_default_is_500_ms_at_60_hz() {
        let c = RollbackConfig::at_rate(TickRate::Hz60);
        assert_eq!(
            c.max_prediction,
            Some(ROLLBACK_MAX_PREDICTION.default as u16)
        );
        assert_eq!(f64::from(c.redundancy), ROLLBACK_REDUNDANCY.default);
    }

    #[test]
    fn the_room_controls_are_the_rooms_own_ranges() {
        use crate::room::{AmmoMode, PlayerSettings};
        let p = PlayerSettings::default();
        assert_eq!(NET_UPDATE_RATE.default, f64::from(p.net_update_hz));
        assert_eq!((NET_UPDATE_RATE.min, NET_UPDATE_RATE.max), (5.0, 60.0));
        assert_eq!(REWIND_CAP.default, f64::from(p.rewind_cap_ms));
        assert_eq!(REWIND_CAP.max, 1000.0);
        assert_eq!(REWIND.default, p.rewind);
        assert_eq!((MAX_RECORD_TIME.default, MAX_RECORD_TIME.max), (0.4, 4.0));
        assert_eq!(
            AMMO_SEQUENCE.default,
            AmmoMode::default() == AmmoMode::Sequence
        );
    }

    #[test]
    fn every_default_is_in_its_range_and_on_its_step() {
        let all = PAGE_RANGES
            .iter()
            .chain(PER_DIRECTION)
            .chain(ROLLBACK_RANGES);
        for r in all {
            assert!(r.contains(r.default), "{}", r.id);
            let steps = (r.default - r.min) / r.step;
            assert!(
                (steps - steps.round()).abs() < 1e-6,
                "{} default off-step",
                r.id
            );
            assert!(r.step > 0.0 && r.min < r.max, "{}", r.id);
        }
    }

    #[test]
    fn scaled_ranges_count_in_wire_units() {
        assert_eq!(ERROR_THRESHOLD.scaled(10.0), 1..=1000);
        assert_eq!(LOSS.scaled(10.0), 0..=500);
        assert_eq!(SPIKE_DURATION.scaled(1000.0), 100..=30_000);
        assert_eq!(CLOCK_SPEED.clamp(f64::NAN), 1.0);
        assert_eq!(CLOCK_SPEED.clamp(9.0), 2.0);
    }
}
