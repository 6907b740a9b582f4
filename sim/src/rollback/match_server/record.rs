//! The recording side of a [`MatchServer`] (opt-in,
//! [`MatchServer::record`]): who sat where from which tick to which, each
//! seat's link as last set, and each tick's used inputs with the state
//! hash — what [`crate::rollback::recording`] replays.

use super::{MatchServer, Occupant};
use crate::rollback::arena::Arena;
use crate::rollback::game::Game;
use crate::rollback::recording::{
    MatchRecording, RecordedJoin, RecordedLink, RecordedTick, UsedInput, MAX_RECORDED_TICKS,
};
use crate::rollback::tick::Tick;

impl MatchServer {
    /// Starts recording the match from now on (opt-in, for replays and
    /// the golden suite): the world now, the occupants seated now and
    /// every one seated later, and each tick's input per player with its
    /// fill and the state hash. At most `max_ticks` ticks (capped at
    /// [`MAX_RECORDED_TICKS`]); past that the recording stops and is
    /// marked truncated. A recording already running starts again;
    /// [`MatchServer::restart`] starts one for the new match.
    pub fn record(&mut self, max_ticks: usize) {
        let mut rec = MatchRecording::begin(self.config, self.match_id, self.state().clone());
        let now = self.server.tick();
        for (i, s) in self.seats.iter().enumerate() {
            if !matches!(s.occupant, Occupant::Free) {
                rec.joins.push(join_of(i, &s.occupant, now));
            }
        }
        self.recording = Some((rec, max_ticks.min(MAX_RECORDED_TICKS)));
    }

    /// Notes `link` as the link of the occupant seated in `player` now
    /// (the newest settings win: a page sets its own right after it
    /// joins), if recording.
    pub fn note_link(&mut self, player: usize, link: RecordedLink) {
        if let Some(j) = self.recorded_occupant(player) {
            j.link = Some(link);
        }
    }

    /// The recording so far; `None` unless [`MatchServer::record`] was
    /// called.
    pub fn recording(&self) -> Option<&MatchRecording> {
        self.recording.as_ref().map(|(rec, _)| rec)
    }

    /// Notes the occupant just seated in `seat`, if recording.
    pub(super) fn note_seated(&mut self, seat: usize) {
        let joined = self.server.tick();
        if let Some((rec, _)) = &mut self.recording {
            rec.joins
                .push(join_of(seat, &self.seats[seat].occupant, joined));
        }
    }

    /// Notes that `player`'s occupant left now, if recording.
    pub(super) fn note_left(&mut self, player: usize) {
        let left = self.server.tick();
        if let Some(j) = self.recorded_occupant(player) {
            j.left = Some(left);
        }
    }

    /// Notes the tick just run (its hash and used inputs), or that the
    /// recording is full.
    pub(super) fn note_tick(&mut self) {
        if let Some((rec, max_ticks)) = &mut self.recording {
            if rec.ticks.len() < *max_ticks {
                rec.ticks.push(RecordedTick {
                    hash: Arena::state_hash(self.server.state()),
                    inputs: self
                        .server
                        .last_inputs()
                        .map(|(cmd, fill)| UsedInput::new(&cmd, fill))
                        .collect(),
                });
            } else {
                rec.truncated = true;
            }
        }
    }

    /// The recording's entry for whoever sits in `player` now, if
    /// recording.
    fn recorded_occupant(&mut self, player: usize) -> Option<&mut RecordedJoin> {
        let (rec, _) = self.recording.as_mut()?;
        rec.joins
            .iter_mut()
            .rev()
            .find(|j| usize::from(j.player) == player && j.left.is_none())
    }
}

/// The recording's entry for `occupant` of `seat`, seated from `joined`.
fn join_of(seat: usize, occupant: &Occupant, joined: Tick) -> RecordedJoin {
    RecordedJoin {
        player: seat as u8,
        session: match occupant {
            Occupant::Player { session } => Some(*session),
            _ => None,
        },
        joined,
        left: None,
        link: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rollback::bot::BotPlayer;
    use crate::rollback::config::RollbackConfig;
    use crate::rollback::tick::TickRate;

    #[test]
    fn a_recording_keeps_each_ticks_inputs_with_their_fill_and_stops_at_its_limit() {
        use crate::rollback::recording::replay;
        use crate::rollback::server::InputFill;
        use crate::rollback::wire::{InputPacket, PackedInput};
        let mut m = MatchServer::new(RollbackConfig::at_rate(TickRate::Hz60), 2, 4).unwrap();
        let a = m.join(20).unwrap().ids;
        m.record(10);
        m.add_bot(BotPlayer::new(1)).unwrap();
        let walk = PackedInput {
            buttons: 0,
            move_x: 127,
            move_y: 0,
        };
        m.deliver(&InputPacket {
            ids: a,
            newest: m.state().tick,
            inputs: vec![walk],
        })
        .unwrap();
        let mut out = Vec::new();
        for _ in 0..12 {
            m.run_tick(&mut out);
        }
        let rec = m.recording().unwrap();
        assert_eq!(rec.ticks.len(), 10);
        assert!(rec.truncated);
        assert_eq!(
            rec.joins
                .iter()
                .map(|j| (j.player, j.session))
                .collect::<Vec<_>>(),
            [(0, Some(20)), (1, None)]
        );
        // Received once, held 6 ticks (`001_…` §5.1), then empty.
        let fills: Vec<InputFill> = rec.ticks.iter().map(|t| t.inputs[0].fill).collect();
        assert_eq!(
            fills[..8],
            [
                InputFill::Received,
                InputFill::Held,
                InputFill::Held,
                InputFill::Held,
                InputFill::Held,
                InputFill::Held,
                InputFill::Held,
                InputFill::Empty
            ]
        );
        assert_eq!(rec.ticks[6].inputs[0].move_x, 127);
        assert_eq!(rec.ticks[7].inputs[0].move_x, 0);
        // The bot's inputs go in as received.
        assert!(rec
            .ticks
            .iter()
            .all(|t| t.inputs[1].fill == InputFill::Received));
        let r = replay(rec).unwrap();
        assert_eq!(rec.first_mismatch(&r), None);
        // A restart records the new match from its start.
        m.restart(m.config()).unwrap();
        let rec = m.recording().unwrap();
        assert_eq!(
            (rec.match_id, rec.ticks.len(), rec.start.tick),
            (5, 0, Tick(0))
        );
        assert_eq!(rec.joins.len(), 2);
    }
}
