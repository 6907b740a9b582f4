//! [`RelayInspection`]: a run on the relay inspected from the page (issue
//! 23). What can be gone back to and explained is what the page has: its
//! own end, played again from its tape ([`crate::scenario::tape`]) to any
//! frame — the panels, the metrics, every correction — and the relay's
//! packet trace, which the tape carries with the frames that brought it.
//! What cannot: the relay's own end. Its polls are its own, so the
//! server's state between the observer views, its account of each move
//! and what-if forks (they re-run the server) stay with a run in the
//! page; a story says what the trace shows of the server instead.
//!
//! A CMC correction's story reads the episode as the relay saw it: the
//! client's moves since it last started again from the server's state,
//! each with the ServerMoves that carried it and their fates. A move no
//! carrier delivered was **lost**; a move whose carriers all arrived after
//! a newer move had was **late** (the server ignores an older time stamp,
//! as UE does). Either way the server covered its time with the next move
//! it took. A rollback's story is the in-page one (the trace has the Acks'
//! missed counts and every input packet).

use super::origin::Origin;
use super::scrub::{checkpoint_every, Corrected, Correction, FrameMark, Seen};
use super::story::{
    cmc_rule, inputs_differ, limit_cm, missing_causes, rollback_story_of, Cause, Records, Story,
    EPISODE_MS, MINOR_CAUSES_SHOWN,
};
use crate::cmc::client::{ClientMoveRecord, CorrectionRecord};
use crate::cmc::wire::AdjustmentReason;
use crate::foundation::time::{SimTime, TimeStamp};
use crate::net::conditioner::Fate;
use crate::net::trace::{Direction, PacketKind, PacketLog, PacketRecord};
use crate::protocol::Setup;
use crate::scenario::tape::{ClientTape, TapeEvent, TapeRun};
use std::collections::BTreeSet;

/// A relay run's client half, inspected (see the module doc).
#[derive(Debug, Clone)]
pub struct RelayInspection {
    tape: ClientTape,
    /// The page's settings, from the frame each change came before.
    changes: Vec<(usize, Setup)>,
    /// The tape played to its end with every record.
    run: TapeRun,
    marks: Vec<FrameMark>,
    checkpoints: Vec<TapeRun>,
    every: usize,
    corrections: Vec<Correction>,
}

impl RelayInspection {
    /// Plays `tape` twice: once with every record (the corrections, the
    /// trace at the end), once without for the checkpoints.
    pub fn of(tape: ClientTape) -> RelayInspection {
        let every = checkpoint_every(tape.frames());
        let mut run = TapeRun::of(&tape);
        let mut marks = Vec::with_capacity(tape.frames());
        let mut corrections = Vec::new();
        let mut seen = Seen::default();
        // The corrections before the tape began are not its own.
        let _ = seen.new_corrections(run.endpoint());
        while run.step(&tape) {
            let (frame, at) = (run.frame_index() - 1, run.now());
            marks.push(FrameMark {
                end: at,
                state_hash: run.endpoint().state_hash(),
            });
            for what in seen.new_corrections(run.endpoint()) {
                corrections.push(Correction { frame, at, what });
            }
        }
        let mut changes = vec![(0, tape.setup())];
        let mut frame = 0;
        for e in tape.events() {
            match e {
                TapeEvent::Frame { .. } => frame += 1,
                TapeEvent::Apply(s) => {
                    let setup = changes.last().map_or(tape.setup(), |c| c.1).with(*s);
                    changes.push((frame, setup));
                }
                _ => {}
            }
        }
        let mut plain = TapeRun::plain(&tape);
        let mut checkpoints = vec![plain.clone()];
        while plain.step(&tape) {
            if plain.frame_index() % every == 0 {
                checkpoints.push(plain.clone());
            }
        }
        RelayInspection {
            tape,
            changes,
            run,
            marks,
            checkpoints,
            every,
            corrections,
        }
    }

    /// The tape played to its end, with every record.
    pub fn run(&self) -> &TapeRun {
        &self.run
    }

    /// The relay's packet trace at the end (page clock), if the page had
    /// one.
    pub fn packets(&self) -> Option<&PacketLog> {
        self.run.endpoint().trace().map(|t| t.log())
    }

    /// Where the run stood after each frame.
    pub fn marks(&self) -> &[FrameMark] {
        &self.marks
    }

    /// The corrections, in the order applied.
    pub fn corrections(&self) -> &[Correction] {
        &self.corrections
    }

    /// Frames between two checkpoints: the most a seek plays.
    pub fn checkpoint_every(&self) -> usize {
        self.every
    }

    /// The page's settings in force during frame `frame`.
    pub fn settings_at(&self, frame: usize) -> Setup {
        let i = self.changes.partition_point(|(f, _)| *f <= frame);
        self.changes[i.saturating_sub(1)].1
    }

    /// The client end after `frames` frames of the tape (clamped), played
    /// from the nearest checkpoint at or before it: its state hash is
    /// `marks()[frames - 1].state_hash`.
    pub fn seek(&self, frames: usize) -> TapeRun {
        let frames = frames.min(self.marks.len());
        let i = (frames / self.every).min(self.checkpoints.len() - 1);
        let mut run = self.checkpoints[i].clone();
        while run.frame_index() < frames && run.step(&self.tape) {}
        run
    }

    /// Plays `run` (a seek's) one frame on; `false` at the tape's end.
    pub fn step(&self, run: &mut TapeRun) -> bool {
        run.step(&self.tape)
    }

    /// The frames played by page time `t`.
    pub fn frames_at(&self, t: SimTime) -> usize {
        self.marks.partition_point(|m| m.end <= t)
    }

    /// Correction `index` explained, if there is one.
    pub fn explain(&self, index: usize) -> Option<Story> {
        let c = self.corrections.get(index)?;
        let setup = self.settings_at(c.frame);
        Some(match &c.what {
            Corrected::Move(rec) => self.cmc_story(c, rec, &setup),
            Corrected::Rollback(e) => {
                let records = Records {
                    corrections: &self.corrections,
                    marks: &self.marks,
                    packets: self.packets(),
                };
                rollback_story_of(&records, &setup, c, e)
            }
        })
    }

    fn cmc_story(&self, c: &Correction, rec: &CorrectionRecord, setup: &Setup) -> Story {
        let client: Vec<&ClientMoveRecord> = self
            .run
            .endpoint()
            .cmc()
            .map(|cl| cl.move_log().collect())
            .unwrap_or_default();
        let packets = self.packets();
        let ups: Vec<&PacketRecord> = packets
            .into_iter()
            .flat_map(|l| l.records())
            .filter(|r| r.direction == Direction::Up && r.kind == PacketKind::ServerMove)
            .collect();
        // When the move left: the first packet carrying it as new.
        let sent = ups
            .iter()
            .filter(|p| p.detail == rec.time_stamp.0)
            .map(|p| p.sent)
            .min()
            .unwrap_or(c.at);
        let earlier = |o: &&Correction| matches!(o.what, Corrected::Move(_)) && o.at < c.at;
        let echo_of = self
            .corrections
            .iter()
            .filter(earlier)
            .rfind(|o| o.at >= sent);
        let mut causes = Vec::new();
        let mut origin = None;
        let from = match (echo_of, rec.is_redundant(limit_cm(setup))) {
            (Some(original), true) => {
                // An echo is the correction it repeats over again: its
                // origin and causes, down to the first, are that one's.
                let first = self
                    .corrections
                    .iter()
                    .position(|o| std::ptr::eq(o, original))
                    .and_then(|i| self.explain(i));
                if let Corrected::Move(moved) = &original.what {
                    causes.push(Cause::Echo {
                        of: moved.time_stamp,
                        applied: original.at,
                        residual_cm: rec.residual_cm,
                    });
                }
                if let Some(first) = first {
                    origin = Some(first.origin);
                    causes.extend(first.causes);
                }
                original.at
            }
            _ => {
                let resync = self
                    .corrections
                    .iter()
                    .filter(earlier)
                    .rfind(|o| o.at < sent)
                    .map_or(SimTime::ZERO, |o| o.at);
                let from = resync.max(SimTime(sent.0.saturating_sub(EPISODE_MS * 1000)));
                causes = trace_causes(&client, &ups, packets, from, rec.time_stamp);
                from
            }
        };
        if rec.reason == AdjustmentReason::Forced {
            causes.push(Cause::ForcedRoll);
        }
        if causes.is_empty() {
            causes.push(Cause::NotInTrace);
        }
        let replayed: Vec<ClientMoveRecord> = client
            .iter()
            .filter(|m| m.time_stamp.is_after(rec.time_stamp))
            .take(rec.moves_replayed as usize)
            .map(|m| **m)
            .collect();
        Story {
            subject: format!("Adjustment of move @{} ms", rec.time_stamp.0),
            frame: c.frame,
            at: c.at,
            rule: cmc_rule(rec, setup),
            // The client's prediction for that move when the Adjustment
            // arrived: what it reported, unless an earlier replay moved it.
            client: rec.discarded.first().copied().unwrap_or(rec.snap),
            server: rec.snap,
            causes,
            replayed,
            replayed_count: rec.moves_replayed,
            dropped: !setup.client.reconciliation,
            from,
            origin: origin.unwrap_or_else(|| Origin::of(&self.marks, from, c.frame)),
            forks: Vec::new(),
        }
    }
}

/// The moves of the episode from `from` up to the corrected one (`upto`)
/// the server did not take on their own, as the trace shows them: lost
/// (no carrier delivered) or late (every carrier delivered after a newer
/// move), each run of them named with the move that covered their time.
fn trace_causes(
    client: &[&ClientMoveRecord],
    ups: &[&PacketRecord],
    packets: Option<&PacketLog>,
    from: SimTime,
    upto: TimeStamp,
) -> Vec<Cause> {
    let taken = taken_moves(ups);
    let Some(first) = ups
        .iter()
        .filter(|p| p.sent >= from)
        .map(|p| TimeStamp(p.detail))
        .min_by(|a, b| a.diff(*b).cmp(&0))
    else {
        return Vec::new();
    };
    let episode = client
        .iter()
        .filter(|m| !first.is_after(m.time_stamp) && upto.is_after(m.time_stamp));
    let mut causes = Vec::new();
    let mut minor = Vec::new();
    let mut gap: Vec<ClientMoveRecord> = Vec::new();
    for m in episode {
        if !taken.contains(&m.time_stamp.0) {
            gap.push(**m);
            continue;
        }
        if gap.is_empty() {
            continue;
        }
        let missing = std::mem::take(&mut gap);
        let (late, lost): (Vec<_>, Vec<_>) = missing.into_iter().partition(|g| {
            let carriers = || ups.iter().filter(|p| carries(p, g.time_stamp.0));
            carriers().any(|p| p.fate.delivered())
        });
        let differ = |v: &[ClientMoveRecord]| v.iter().any(|g| inputs_differ(&g.input, &m.input));
        let mut found = Vec::new();
        if !lost.is_empty() {
            let major = differ(&lost);
            let c = missing_causes(lost, m.time_stamp, m.input, packets);
            found.extend(c.into_iter().map(|c| (major, c)));
        }
        if !late.is_empty() {
            let major = differ(&late);
            let mut named: Vec<PacketRecord> = ups
                .iter()
                .filter(|p| late.iter().any(|g| carries(p, g.time_stamp.0)))
                .map(|p| **p)
                .collect();
            named.dedup_by_key(|p| p.index);
            found.push((
                major,
                Cause::LateMoves {
                    moves: late,
                    covered_by: m.time_stamp,
                    packets: named,
                },
            ));
        }
        for (major, c) in found {
            if major {
                causes.push(c);
            } else {
                minor.push(c);
            }
        }
    }
    if causes.is_empty() {
        minor.split_off(minor.len().saturating_sub(MINOR_CAUSES_SHOWN))
    } else {
        causes
    }
}

/// Whether ServerMove `p` carried the move stamped `ts`.
fn carries(p: &PacketRecord, ts: u32) -> bool {
    p.detail == ts || p.also.contains(&ts)
}

/// The moves the server took: those in a ServerMove that arrived before
/// any newer one (in arrival order, a packet whose new move is not newer
/// than every move taken so far is ignored as old).
fn taken_moves(ups: &[&PacketRecord]) -> BTreeSet<u32> {
    let mut arrived: Vec<(SimTime, u64, &PacketRecord)> = ups
        .iter()
        .filter_map(|p| match p.fate {
            Fate::Delivered { at, .. } => Some((at, p.index, *p)),
            _ => None,
        })
        .collect();
    arrived.sort_by_key(|(at, index, _)| (*at, *index));
    let mut newest: Option<TimeStamp> = None;
    let mut taken = BTreeSet::new();
    for (_, _, p) in arrived {
        let ts = TimeStamp(p.detail);
        if newest.is_some_and(|n| !ts.is_after(n)) {
            continue;
        }
        for t in [p.detail, p.also[0], p.also[1]] {
            if t != 0 && newest.is_none_or(|n| TimeStamp(t).is_after(n)) {
                taken.insert(t);
            }
        }
        newest = Some(ts);
    }
    taken
}
