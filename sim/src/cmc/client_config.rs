//! The client's network switches and rates ([`ClientConfig`]), each
//! mirroring a UE setting, and the UE constants they default to.

use super::controls;

/// UE `ClientNetSendMoveDeltaTime` default (`AGameNetworkManager`):
/// 0.0111 s, i.e. at most ~90 ServerMoves a second.
pub const CLIENT_NET_SEND_MOVE_DELTA_TIME: f32 = 0.0111;
/// UE `ClientNetSendMoveDeltaTimeStationary`: 1/12 s between moves while
/// standing still with no input.
pub const CLIENT_NET_SEND_MOVE_DELTA_TIME_STATIONARY: f32 = 1.0 / 12.0;
/// UE `MinTimeBetweenTimeStampResets` (CMC.cpp:675, `000_…` §9.2): the
/// client takes 240 s off its time stamp once it has passed 240 s, before
/// `float` precision would suffer. Kept here though our stamps are
/// integers, so the server's reset detection is exercised exactly like
/// UE's.
pub const MIN_TIME_BETWEEN_TIME_STAMP_RESETS_MS: u32 = 240_000;

/// Switches and rates of the client's network mechanisms, each mirroring a
/// UE setting (named in its doc).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ClientConfig {
    /// Hold a move as *pending* while less than `send_interval` has passed
    /// since the last send, and merge alike moves (UE
    /// `p.NetEnableMoveCombining` = 1, `000_…` §8.1–§8.2).
    pub combine_moves: bool,
    /// Minimum time between ServerMoves while moving, s (UE
    /// `ClientNetSendMoveDeltaTime`, 0.0111). Clamped to 1/120..=1/5 as UE
    /// does.
    pub send_interval: f32,
    /// Resend the oldest unacknowledged important move with every
    /// ServerMove (`000_…` §8.3).
    pub old_move_redundancy: bool,
    /// Percent of ServerMoves the client drops before sending (UE
    /// `p.NetForceClientServerMoveLossPercent`), `0.0..=100.0`.
    pub forced_move_loss_percent: f32,
    /// Client-only speed buff: the client predicts with 1.5× max speed, the
    /// server does not (the systematic error of `000_…` §3.3 / §4.2).
    pub speed_buff: bool,
    /// The bug reference `004_…` fixes: the dash is added to the velocity
    /// directly instead of travelling as input of the move. The server never
    /// hears of it, and a replay loses it.
    pub dash_outside_saved_move: bool,
    /// How fast the client's clock runs against real time, `0.5..=2.0`
    /// ([`CLOCK_SPEED`]; 1 = honest): a speed hack. Every frame's time is
    /// multiplied by it before the client simulates and stamps its moves,
    /// so a 1.5× client claims 1.5 s of movement per second — what the
    /// server's time-discrepancy detection (`000_…` §9.4) exists to catch.
    #[serde(default = "honest_clock")]
    pub clock_speed: f32,
    /// Client-side prediction ([`controls::PREDICTION`], default on,
    /// `000_…` §3.3). Off, [`crate::cmc::client::Client::drawn_position`]
    /// is the state the server last confirmed (an Ack's move or an
    /// Adjustment's state), so a key shows one RTT plus up to one ack
    /// interval (`000_…` §5.2, 0.1 s) later. The client still simulates
    /// every move: the ServerMove carries the location it reached.
    pub prediction: bool,
    /// Reconciliation ([`controls::RECONCILIATION`], default on, `000_…`
    /// §6.3–§6.4). Off, an Adjustment snaps to the server's state and drops
    /// every unacknowledged SavedMove instead of replaying them.
    pub reconciliation: bool,
}

/// The range of [`ClientConfig::clock_speed`] (the page's
/// [`controls::CLOCK_SPEED`]).
pub const CLOCK_SPEED: core::ops::RangeInclusive<f32> =
    controls::CLOCK_SPEED.min as f32..=controls::CLOCK_SPEED.max as f32;

fn honest_clock() -> f32 {
    controls::CLOCK_SPEED.default as f32
}

impl Default for ClientConfig {
    /// UE's send interval and the page controls' defaults.
    fn default() -> Self {
        ClientConfig {
            combine_moves: controls::COMBINING.default,
            send_interval: CLIENT_NET_SEND_MOVE_DELTA_TIME,
            old_move_redundancy: controls::OLD_MOVES.default,
            forced_move_loss_percent: controls::FORCED_MOVE_LOSS.default as f32,
            speed_buff: controls::SPEED_BUFF.default,
            dash_outside_saved_move: controls::DASH_BUG.default,
            clock_speed: honest_clock(),
            prediction: controls::PREDICTION.default,
            reconciliation: controls::RECONCILIATION.default,
        }
    }
}

/// Max-speed multiplier of the client-only speed buff.
pub const SPEED_BUFF: f32 = 1.5;
