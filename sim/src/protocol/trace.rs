//! The packet trace as the protocol carries it (issue 23): the page asks
//! with [`super::ClientMsg::Trace`] ([`TraceRequest`]) and the host answers
//! with [`super::ServerMsg::Trace`] batches ([`TraceFrame`]), past the
//! link conditioner like every control message: the trace describes the
//! conditioned link, it does not ride on it. In a room a batch also
//! carries the shots its player fired or was the target of
//! ([`JudgedShot`]): the target learns of a shot and its verdict only here.
//!
//! [`TraceRequest`]: crate::net::trace_wire::TraceRequest

use super::ClientMsg;
use crate::foundation::time::SimTime;
use crate::net::trace_wire::TraceBatch;
use crate::room::replication::PlayerId;
use crate::room::wire::ShotResult;
use serde::{Deserialize, Serialize};

/// A shot the room judged, in the trace of its shooter and of the
/// character judged (`result.target`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct JudgedShot {
    /// When the server judged it, relay clock.
    pub at: SimTime,
    /// Who fired.
    pub shooter: PlayerId,
    /// The verdict, how far back the server went, and the views of the
    /// character judged.
    pub result: ShotResult,
}

/// Something a trace batch tells besides packets.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum TraceEvent {
    /// A control message the host acted on (Hello, settings, rules, a lag
    /// spike, the model, the trace itself; a room's join, switches and
    /// bots), taken in at `at` when `up` uplink and `down` downlink
    /// packets had been sent.
    Control {
        /// Relay clock.
        at: SimTime,
        /// Uplink packets sent before it.
        up: u64,
        /// Downlink packets sent before it.
        down: u64,
        /// The message.
        msg: ClientMsg,
    },
    /// A shot the room judged.
    Shot(JudgedShot),
}

/// One trace batch on the wire.
pub type TraceFrame = TraceBatch<TraceEvent>;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cmc::wire::NetPosition;
    use crate::net::settings::{LinkSettings, NetSettings};
    use crate::net::trace_wire::MAX_EVENT_LEN;
    use crate::room::weapon::RejectReason;
    use crate::room::wire::{TargetViews, Verdict};
    use crate::room::Seq;

    fn len(e: &TraceEvent) -> usize {
        postcard::to_allocvec(e).unwrap().len()
    }

    #[test]
    fn the_largest_events_fit_the_batch_limit() {
        let most = LinkSettings {
            latency_ms: u16::MAX,
            jitter_ms: u16::MAX,
            loss_tenth_percent: u16::MAX,
            duplicate_tenth_percent: u16::MAX,
            reorder_percent: u8::MAX,
            burst_enter_tenth_percent: u16::MAX,
            burst_leave_percent: u8::MAX,
            burst_loss_percent: u8::MAX,
            bandwidth_bytes_per_s: u32::MAX,
        };
        let settings = TraceEvent::Control {
            at: SimTime(u64::MAX),
            up: u64::MAX,
            down: u64::MAX,
            msg: ClientMsg::SetNetSettings(NetSettings {
                uplink: most,
                downlink: most,
            }),
        };
        assert!(len(&settings) <= MAX_EVENT_LEN, "{}", len(&settings));
    }

    #[test]
    fn the_largest_judged_shot_fits_the_batch_limit() {
        let far = NetPosition {
            x: i32::MIN,
            y: i32::MIN,
        };
        let worst = JudgedShot {
            at: SimTime(u64::MAX),
            shooter: PlayerId(u32::MAX),
            result: ShotResult {
                seq: Seq(u32::MAX),
                verdict: Verdict::Rejected(RejectReason::ClockAhead),
                rewind_ms: u16::MAX,
                target: Some(TargetViews {
                    id: PlayerId(u32::MAX),
                    tested: far,
                    server_now: far,
                    target_saw: far,
                }),
            },
        };
        assert!(len(&TraceEvent::Shot(worst)) <= MAX_EVENT_LEN);
    }
}
