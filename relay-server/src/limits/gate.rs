//! One connection's budgets ([`Gate`]): a token bucket per message kind,
//! held settings, strikes for bad frames, and the verdict that closes an
//! abusive socket (the rates: the table in [`super`]).

use super::bucket::TokenBucket;
use super::Limits;
use sim::cmc::rules::ServerRules;
use sim::net::settings::NetSettings;
use sim::net::trace_wire::TraceRequest;
use sim::net::transport::LinkTransport;
use sim::protocol::ClientMsg;
use sim::room::{PlayerSettings, RoomClientMsg};
use sim::{Model, SimTime};

/// Which budget a message draws on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `ServerMove`.
    Move,
    /// `Inputs`.
    Inputs,
    /// `Ping`.
    Ping,
    /// A room's `TimeRequest`, `Fire`, `Reload`; a rollback room's
    /// `SeatReport` (one a second).
    Room,
    /// `Hello`, `Resume`, `SetNetSettings`, `SetTransport`,
    /// `SetServerRules`, `SetModel`, `LagSpike`; a room's `Join`, `SetPlayerSettings`,
    /// `SetMaxRecordTime`, `AddBot`.
    Control,
}

/// What to do with a decoded message.
#[derive(Debug)]
pub(crate) enum Admit {
    /// Within budget: hand it to the host.
    Pass(ClientMsg),
    /// Settings over budget: held (replacing an older held one) until
    /// [`Gate::release`] returns it.
    Held,
    /// Over budget and dropped.
    Dropped(Kind),
}

/// Why the socket is to be closed with 1008.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Violation(pub(crate) String);

/// Counters for the disconnect summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct GateTotals {
    /// ServerMoves dropped over budget.
    pub(crate) dropped_moves: u64,
    /// Rollback input packets dropped over budget.
    pub(crate) dropped_inputs: u64,
    /// Pings dropped over budget.
    pub(crate) dropped_pings: u64,
    /// Room clock-sync requests, shots and reloads dropped over budget.
    pub(crate) dropped_room: u64,
    /// Hellos and Resumes dropped over budget.
    pub(crate) dropped_control: u64,
    /// Settings messages replaced by a newer one while held.
    pub(crate) coalesced: u64,
    /// Bad frames.
    pub(crate) strikes: u64,
}

/// One connection's budgets.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    limits: Limits,
    moves: TokenBucket,
    inputs: TokenBucket,
    pings: TokenBucket,
    room: TokenBucket,
    control: TokenBucket,
    held_settings: Option<NetSettings>,
    held_transport: Option<LinkTransport>,
    held_rules: Option<ServerRules>,
    held_model: Option<Model>,
    held_player: Option<PlayerSettings>,
    held_record_time: Option<u16>,
    held_trace: Option<TraceRequest>,
    window_start: SimTime,
    window_strikes: u32,
    window_dropped: u32,
    totals: GateTotals,
}

impl Gate {
    pub(crate) fn new(limits: Limits, now: SimTime) -> Gate {
        Gate {
            moves: TokenBucket::new(limits.moves, now),
            inputs: TokenBucket::new(limits.inputs, now),
            pings: TokenBucket::new(limits.pings, now),
            room: TokenBucket::new(limits.room_actions, now),
            control: TokenBucket::new(limits.control, now),
            limits,
            held_settings: None,
            held_transport: None,
            held_rules: None,
            held_model: None,
            held_player: None,
            held_record_time: None,
            held_trace: None,
            window_start: now,
            window_strikes: 0,
            window_dropped: 0,
            totals: GateTotals::default(),
        }
    }

    pub(crate) fn totals(&self) -> GateTotals {
        self.totals
    }

    fn roll_window(&mut self, now: SimTime) {
        let window = u64::try_from(self.limits.abuse_window.as_micros()).unwrap_or(u64::MAX);
        if now.micros_since(self.window_start) >= window {
            self.window_start = now;
            self.window_strikes = 0;
            self.window_dropped = 0;
        }
    }

    /// Charges `msg` to its budget.
    ///
    /// # Errors
    /// A [`Violation`] when this drop is one too many for the window.
    pub(crate) fn admit(&mut self, now: SimTime, msg: ClientMsg) -> Result<Admit, Violation> {
        // A held settings message goes first: a newer one replaces it.
        let held = self.holding();
        let (kind, bucket) = match msg {
            ClientMsg::ServerMove(_) => (Kind::Move, &mut self.moves),
            ClientMsg::Inputs(_) => (Kind::Inputs, &mut self.inputs),
            ClientMsg::Ping { .. } => (Kind::Ping, &mut self.pings),
            ClientMsg::Room(
                RoomClientMsg::TimeRequest { .. }
                | RoomClientMsg::Fire(_)
                | RoomClientMsg::Reload { .. },
            )
            // A rollback room player's seat report: once a second.
            | ClientMsg::SeatReport(_) => (Kind::Room, &mut self.room),
            ClientMsg::Hello
            | ClientMsg::SetNetSettings(_)
            | ClientMsg::SetTransport(_)
            | ClientMsg::SetServerRules(_)
            | ClientMsg::SetModel(_)
            | ClientMsg::LagSpike(_)
            | ClientMsg::Resume { .. }
            | ClientMsg::Trace(_)
            | ClientMsg::Room(
                RoomClientMsg::Join
                | RoomClientMsg::Watch
                | RoomClientMsg::SetPlayerSettings(_)
                | RoomClientMsg::SetMaxRecordTime { .. }
                | RoomClientMsg::AddBot,
            ) => (Kind::Control, &mut self.control),
        };
        if !(kind == Kind::Control && held) && bucket.try_take(now) {
            return Ok(Admit::Pass(msg));
        }
        match msg {
            ClientMsg::SetNetSettings(s) => {
                self.totals.coalesced += u64::from(self.held_settings.replace(s).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::SetTransport(t) => {
                self.totals.coalesced += u64::from(self.held_transport.replace(t).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::SetServerRules(r) => {
                self.totals.coalesced += u64::from(self.held_rules.replace(r).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::SetModel(m) => {
                self.totals.coalesced += u64::from(self.held_model.replace(m).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::Room(RoomClientMsg::SetPlayerSettings(p)) => {
                self.totals.coalesced += u64::from(self.held_player.replace(p).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::Room(RoomClientMsg::SetMaxRecordTime { ms }) => {
                self.totals.coalesced += u64::from(self.held_record_time.replace(ms).is_some());
                Ok(Admit::Held)
            }
            ClientMsg::Trace(r) => {
                self.totals.coalesced += u64::from(self.held_trace.replace(r).is_some());
                Ok(Admit::Held)
            }
            _ => {
                match kind {
                    Kind::Move => self.totals.dropped_moves += 1,
                    Kind::Inputs => self.totals.dropped_inputs += 1,
                    Kind::Ping => self.totals.dropped_pings += 1,
                    Kind::Room => self.totals.dropped_room += 1,
                    Kind::Control => self.totals.dropped_control += 1,
                }
                self.roll_window(now);
                self.window_dropped += 1;
                if self.window_dropped > self.limits.max_dropped {
                    return Err(Violation(format!(
                        "flooding: more than {} frames over the rate limit within {} s",
                        self.limits.max_dropped,
                        self.limits.abuse_window.as_secs()
                    )));
                }
                Ok(Admit::Dropped(kind))
            }
        }
    }

    /// Whether a settings, transport, rules, model, player settings, `MaxRecordTime`
    /// or trace request is held.
    fn holding(&self) -> bool {
        self.held_settings.is_some()
            || self.held_transport.is_some()
            || self.held_rules.is_some()
            || self.held_model.is_some()
            || self.held_player.is_some()
            || self.held_record_time.is_some()
            || self.held_trace.is_some()
    }

    /// A held message whose token has arrived: settings, the transport,
    /// then rules, the
    /// model, the player's room settings, `MaxRecordTime`, the trace
    /// request.
    pub(crate) fn release(&mut self, now: SimTime) -> Option<ClientMsg> {
        if !self.holding() || !self.control.try_take(now) {
            return None;
        }
        self.held_settings
            .take()
            .map(ClientMsg::SetNetSettings)
            .or_else(|| self.held_transport.take().map(ClientMsg::SetTransport))
            .or_else(|| self.held_rules.take().map(ClientMsg::SetServerRules))
            .or_else(|| self.held_model.take().map(ClientMsg::SetModel))
            .or_else(|| {
                let p = self.held_player.take()?;
                Some(ClientMsg::Room(RoomClientMsg::SetPlayerSettings(p)))
            })
            .or_else(|| {
                let ms = self.held_record_time.take()?;
                Some(ClientMsg::Room(RoomClientMsg::SetMaxRecordTime { ms }))
            })
            .or_else(|| self.held_trace.take().map(ClientMsg::Trace))
    }

    /// When [`Gate::release`] will have something, if anything is held.
    pub(crate) fn next_release(&self) -> Option<SimTime> {
        self.holding().then(|| self.control.next_token())
    }

    /// Counts a bad frame.
    ///
    /// # Errors
    /// A [`Violation`] when it is one too many for the window.
    pub(crate) fn strike(&mut self, now: SimTime) -> Result<(), Violation> {
        self.totals.strikes += 1;
        self.roll_window(now);
        self.window_strikes += 1;
        if self.window_strikes > self.limits.max_strikes {
            return Err(Violation(format!(
                "too many bad frames: more than {} within {} s",
                self.limits.max_strikes,
                self.limits.abuse_window.as_secs()
            )));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::cmc::wire::{NetPosition, NetworkMove, ServerMove};

    fn mv() -> ClientMsg {
        ClientMsg::ServerMove(ServerMove::new(
            0,
            NetworkMove {
                time_stamp: sim::TimeStamp(1),
                input: sim::MoveInput::default(),
            },
            NetPosition::default(),
        ))
    }

    fn passes(a: Result<Admit, Violation>) -> bool {
        matches!(a, Ok(Admit::Pass(_)))
    }

    #[test]
    fn moves_at_90_hz_all_pass_and_a_burst_of_120_passes_once() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        let mut now = SimTime::ZERO;
        for _ in 0..900 {
            now = now.plus_micros(11_111);
            assert!(passes(g.admit(now, mv())));
        }
        // 120 at once after a pause: all pass; the 121st is dropped.
        now = now.plus_millis(2000);
        for _ in 0..120 {
            assert!(passes(g.admit(now, mv())));
        }
        assert!(matches!(g.admit(now, mv()), Ok(Admit::Dropped(Kind::Move))));
        assert_eq!(g.totals().dropped_moves, 1);
    }

    fn input_packet() -> ClientMsg {
        use sim::rollback::wire::{Ids, PackedInput};
        ClientMsg::Inputs(sim::rollback::InputPacket {
            ids: Ids::new(1, 1, 0),
            newest: sim::rollback::Tick(0),
            inputs: vec![PackedInput::default(); 4],
        })
    }

    #[test]
    fn rollback_inputs_at_120_hz_sped_up_10_percent_all_pass_and_a_burst_of_150_once() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        let mut now = SimTime::ZERO;
        // 132 packets/s for 10 s.
        for _ in 0..1320 {
            now = now.plus_micros(7_576);
            assert!(passes(g.admit(now, input_packet())));
        }
        now = now.plus_millis(2000);
        for _ in 0..150 {
            assert!(passes(g.admit(now, input_packet())));
        }
        assert!(matches!(
            g.admit(now, input_packet()),
            Ok(Admit::Dropped(Kind::Inputs))
        ));
        assert_eq!(g.totals().dropped_inputs, 1);
        // Moves have their own budget.
        assert!(passes(g.admit(now, mv())));
    }

    #[test]
    fn model_switches_over_budget_are_held_and_the_last_one_applies() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        let rollback = Model::Rollback(sim::rollback::RollbackConfig::default());
        for i in 0..40 {
            let m = if i % 2 == 0 { Model::Cmc } else { rollback };
            let _ = g.admit(SimTime::ZERO, ClientMsg::SetModel(m));
        }
        // 20 passed at once (the burst), 19 were replaced while held.
        assert_eq!(g.totals().coalesced, 19);
        let at = g.next_release().unwrap();
        assert_eq!(g.release(at), Some(ClientMsg::SetModel(rollback)));
        assert!(g.next_release().is_none());
    }

    #[test]
    fn a_flood_is_dropped_then_closed() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        let mut dropped = 0;
        let mut verdict = None;
        for i in 0..10_000u64 {
            // 10 000 moves/s.
            match g.admit(SimTime(i * 100), mv()) {
                Ok(Admit::Dropped(_)) => dropped += 1,
                Ok(_) => {}
                Err(v) => {
                    verdict = Some(v);
                    break;
                }
            }
        }
        assert_eq!(dropped, 600);
        assert!(verdict.unwrap().0.starts_with("flooding"));
    }

    #[test]
    fn a_slider_drag_at_60_hz_ends_on_its_last_value() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        let mut applied = Vec::new();
        let mut now = SimTime::ZERO;
        for rtt in 0..=180u16 {
            now = now.plus_micros(16_667);
            // RTT in 2 ms steps so both halves are whole milliseconds.
            let s = NetSettings::symmetric(rtt * 2, 0, 0);
            if let Ok(Admit::Pass(ClientMsg::SetNetSettings(s))) =
                g.admit(now, ClientMsg::SetNetSettings(s))
            {
                applied.push(s.rtt_ms() / 2);
            }
            while let Some(ClientMsg::SetNetSettings(s)) = g.release(now) {
                applied.push(s.rtt_ms() / 2);
            }
        }
        // Whatever is still held goes out within one token's time.
        if let Some(at) = g.next_release() {
            assert!(at.micros_since(now) <= 100_000);
            if let Some(ClientMsg::SetNetSettings(s)) = g.release(at) {
                applied.push(s.rtt_ms() / 2);
            }
        }
        assert!(g.next_release().is_none());
        assert_eq!(applied.last(), Some(&180));
        // 3 s of drag: the burst of 20 plus 10/s, not 181 messages.
        assert!(applied.len() <= 20 + 31 + 1, "{}", applied.len());
        assert!(applied.windows(2).all(|w| w[1] > w[0]));
    }

    #[test]
    fn strikes_close_after_20_within_10_s_but_not_spread_out() {
        let mut g = Gate::new(Limits::default(), SimTime::ZERO);
        // One bad frame a second for a minute: never closed.
        for s in 0..60 {
            assert!(g.strike(SimTime::from_millis(s * 1000)).is_ok());
        }
        let t = SimTime::from_millis(70_000);
        for _ in 0..20 {
            assert!(g.strike(t).is_ok());
        }
        assert!(g
            .strike(t)
            .unwrap_err()
            .0
            .starts_with("too many bad frames"));
    }
}
