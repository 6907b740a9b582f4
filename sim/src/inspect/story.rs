//! [`Story`]: why one correction happened, told from both ends' records.
//!
//! A CMC Adjustment (`000_…` §4.3–§6): the server checked the location the
//! client reported for one move against its own and found it off by more
//! than the threshold (or forced, or after a forced position update). The
//! rule is the Adjustment's reason. The cause is looked for in the
//! *episode* — the server's moves since the client last started again
//! from the server's state (the latest correction it applied before the
//! corrected move left), at most [`EPISODE_MS`] back:
//!
//! * moves the client made that the server never simulated on their own:
//!   every ServerMove carrying them (as new, pending or old move) was lost
//!   or overtaken, so the server covered their time with the next move's
//!   input — named with those packets and their fates;
//! * moves the client's own loss switch dropped
//!   (`p.NetForceClientServerMoveLossPercent`);
//! * server-only effects: a move's time clamped to 0.125 s (§9.3), cut for
//!   time discrepancy (§9.4), a forced position update (§9.5), a push zone;
//! * the forced-adjustment roll (`p.NetForceClientAdjustmentPercent`);
//! * client-only effects the server cannot know (the speed buff, a dash
//!   outside the SavedMove, `004_…`).
//!
//! A move that left before an earlier correction reached the client is an
//! *echo* of it (the server judges every move in flight against the old
//! prediction): its story names the correction it repeats.
//!
//! A rollback (`001_…` §8): a State restored an earlier tick and the
//! re-simulation moved the local player visibly. Either the server decided
//! ticks without this client's input — its Acks' missed count grew; the
//! input packets that carried those ticks were lost or arrived after the
//! tick — or the other players' inputs changed while the client predicted
//! them by hold-last. Its episode runs from the frame that predicted the
//! first tick decided since the previous visible rollback's State (at
//! most [`EPISODE_MS`] back, and after the previous correction's frame)
//! to the correction, so a what-if forked there leaves every earlier
//! correction as it was.

use super::origin::Origin;
use super::scrub::{Corrected, Correction, Inspection};
use crate::cmc::client::{ClientMoveRecord, CorrectionRecord};
use crate::cmc::server::{MoveOutcome, MoveRecord};
use crate::cmc::wire::AdjustmentReason;
use crate::foundation::math::Vec2;
use crate::foundation::movement::MoveInput;
use crate::foundation::time::{SimTime, TimeStamp};
use crate::net::conditioner::Fate;
use crate::net::trace::{Direction, PacketKind, PacketRecord};
use crate::protocol::Setup;
use crate::rollback::log::RollbackEvent;
use crate::rollback::Tick;
use crate::scenario::ForkOption;

/// How far back an episode reaches at most, ms.
pub const EPISODE_MS: u64 = 2000;
/// Same-input lost moves named at most, newest first.
pub(super) const MINOR_CAUSES_SHOWN: usize = 3;
/// Input directions closer than this (a tenth of a full stick) are the
/// same input for the story: a lost move with nearly the input the server
/// used instead changes nothing visible.
const INPUT_DIFFERENCE: f32 = 0.1;

/// Which rule fired.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Rule {
    /// The reported location was `error_cm` off, more than `limit_cm`
    /// (UE `MAXPOSITIONERRORSQUARED`, 16 cm by default).
    Threshold {
        /// Distance between the client's and the server's location, cm.
        error_cm: f32,
        /// The threshold in force, cm.
        limit_cm: f32,
    },
    /// `p.NetForceClientAdjustmentPercent` picked this move.
    ForcedAdjustment,
    /// The client had gone silent; the server moved it on and corrects
    /// whatever it says next (`000_…` §9.5).
    ForcedPositionUpdate,
    /// A move's time stamp was rejected.
    TimeStamp,
    /// A move's time was clamped to 0.125 s (`000_…` §9.3).
    DeltaClamp,
    /// The client ran ahead of real time; the excess was cut (§9.4).
    TimeDiscrepancy,
    /// Rollback: the server decided ticks without this client's input.
    MissedInput,
    /// Rollback: another player's input differed from the hold-last
    /// prediction.
    RemoteInput,
}

impl Rule {
    /// The rule in words.
    pub fn describe(&self) -> String {
        match self {
            Rule::Threshold { error_cm, limit_cm } => {
                format!("position error {error_cm:.1} cm over the {limit_cm:.0} cm threshold")
            }
            Rule::ForcedAdjustment => {
                "forced adjustment (p.NetForceClientAdjustmentPercent)".to_owned()
            }
            Rule::ForcedPositionUpdate => {
                "forced position update: the client was silent and the server moved it on"
                    .to_owned()
            }
            Rule::TimeStamp => "a time stamp was rejected".to_owned(),
            Rule::DeltaClamp => "a move's time was clamped to 0.125 s".to_owned(),
            Rule::TimeDiscrepancy => {
                "time discrepancy: the client ran ahead of real time".to_owned()
            }
            Rule::MissedInput => "the server decided ticks without your input".to_owned(),
            Rule::RemoteInput => {
                "remote-input misprediction: hold-last guessed another player wrong".to_owned()
            }
        }
    }
}

/// What made the two ends differ.
#[derive(Debug, Clone, PartialEq)]
pub enum Cause {
    /// Moves the server never simulated on their own: it covered their
    /// time with the move stamped `covered_by`, using `server_input`.
    MissingMoves {
        /// The client's moves the server never saw.
        moves: Vec<ClientMoveRecord>,
        /// The move whose time stamp covered them.
        covered_by: TimeStamp,
        /// The input the server used for their time.
        server_input: MoveInput,
        /// Every packet that carried one of them, with its fate.
        packets: Vec<PacketRecord>,
    },
    /// The client's loss switch dropped these moves' ServerMove.
    DroppedByClient {
        /// The moves dropped.
        moves: Vec<ClientMoveRecord>,
    },
    /// A move's time was clamped to 0.125 s.
    Clamped {
        /// The move.
        time_stamp: TimeStamp,
        /// Client time it covered, ms.
        covered_ms: u32,
        /// Time simulated, ms.
        simulated_ms: u32,
    },
    /// A move's time was cut for time discrepancy.
    TimeCut {
        /// The move.
        time_stamp: TimeStamp,
        /// Client time it covered, ms.
        covered_ms: u32,
        /// Time simulated, ms.
        simulated_ms: u32,
    },
    /// The server moved the silent client on, `times` times in a row,
    /// `total_ms` in all, with its last input.
    ForcedUpdate {
        /// Forced updates in a row.
        times: u32,
        /// Time simulated, ms.
        total_ms: u32,
        /// The ServerMoves sent in the silence that did not arrive before
        /// it began (lost, or held by the link), in send order: the
        /// silence's first cause when the page's frames were not.
        packets: Vec<PacketRecord>,
    },
    /// A push zone (a server-only effect) moved the character.
    PushZone {
        /// The move during which it pushed.
        time_stamp: TimeStamp,
    },
    /// The move left before the correction of move `of` reached the
    /// client, so it was predicted from the state that correction fixed:
    /// the server judges every move in flight against the old prediction
    /// (UE does the same). The client had already replayed to within
    /// `residual_cm` of the server when this one arrived.
    Echo {
        /// The move whose correction this one repeats.
        of: TimeStamp,
        /// When that correction was applied.
        applied: SimTime,
        /// How far the client's replayed prediction was from the server's
        /// on arrival, cm.
        residual_cm: f32,
    },
    /// The forced-adjustment roll; nothing differed.
    ForcedRoll,
    /// A client-only effect the server does not simulate.
    ClientOnly {
        /// Which (`speed buff`, `dash outside the SavedMove`).
        what: &'static str,
    },
    /// Rollback: ticks the server decided without this client's input.
    MissedInputs {
        /// The ticks.
        ticks: Vec<u32>,
        /// The input packets that carried them, with their fates.
        packets: Vec<PacketRecord>,
    },
    /// Rollback: the other players' inputs changed while predicted.
    RemoteInputs,
    /// On the relay: moves whose every ServerMove arrived only after a
    /// newer move had, so the server ignored them as old (UE does) and
    /// covered their time with the move stamped `covered_by`.
    LateMoves {
        /// The client's moves the server skipped.
        moves: Vec<ClientMoveRecord>,
        /// The move whose time stamp covered them.
        covered_by: TimeStamp,
        /// Every packet that carried one of them, with its fate.
        packets: Vec<PacketRecord>,
    },
    /// Nothing in the records explains it (drift under the threshold
    /// adding up).
    Unexplained,
    /// On the relay: no ServerMove of the episode was lost or late, and
    /// what the server did with each move (clamps, time discrepancy, push
    /// zones) stays on the relay.
    NotInTrace,
}

impl Cause {
    /// The packets this cause names (to highlight on the timeline).
    pub fn packets(&self) -> &[PacketRecord] {
        match self {
            Cause::MissingMoves { packets, .. }
            | Cause::MissedInputs { packets, .. }
            | Cause::LateMoves { packets, .. }
            | Cause::ForcedUpdate { packets, .. } => packets,
            _ => &[],
        }
    }

    /// The cause in words.
    pub fn describe(&self) -> String {
        match self {
            Cause::MissingMoves {
                moves,
                covered_by,
                server_input,
                packets,
            } => {
                let names: Vec<String> = moves.iter().map(move_name).collect();
                let fates: Vec<String> = packets.iter().map(packet_name).collect();
                let carriers = if fates.is_empty() {
                    "no packet carried them".to_owned()
                } else {
                    fates.join(", ")
                };
                let same = !moves.iter().any(|m| inputs_differ(&m.input, server_input));
                format!(
                    "{} never reached the server ({carriers}); the server covered their time \
                     with move @{} ms and its input {}{}",
                    names.join(", "),
                    covered_by.0,
                    input_name(server_input),
                    if same {
                        " — nearly the same input: one longer step integrates a little \
                         differently, a small drift"
                    } else {
                        ""
                    }
                )
            }
            Cause::DroppedByClient { moves } => format!(
                "the client's own loss switch dropped {} (p.NetForceClientServerMoveLossPercent)",
                moves.iter().map(move_name).collect::<Vec<_>>().join(", ")
            ),
            Cause::Clamped {
                time_stamp,
                covered_ms,
                simulated_ms,
            } => format!(
                "move @{} ms covered {covered_ms} ms of client time; the server simulated only \
                 {simulated_ms} ms (clamped to 0.125 s)",
                time_stamp.0
            ),
            Cause::TimeCut {
                time_stamp,
                covered_ms,
                simulated_ms,
            } => format!(
                "move @{} ms covered {covered_ms} ms; the server cut it to {simulated_ms} ms \
                 (time discrepancy)",
                time_stamp.0
            ),
            Cause::ForcedUpdate {
                times,
                total_ms,
                packets,
            } => {
                let silent = match packets.first() {
                    None => String::new(),
                    Some(first) => format!(
                        ": {} ServerMove{} sent in the silence did not arrive in time, the \
                         first {}",
                        packets.len(),
                        if packets.len() == 1 { "" } else { "s" },
                        packet_name(first)
                    ),
                };
                format!(
                    "the server heard no move for 0.25 s and moved the character on by itself \
                     ({times} forced update{}, {total_ms} ms in all) with its last input{silent}",
                    if *times == 1 { "" } else { "s" }
                )
            }
            Cause::PushZone { time_stamp } => format!(
                "a push zone moved the server's character during move @{} ms (server-only)",
                time_stamp.0
            ),
            Cause::Echo {
                of,
                applied,
                residual_cm,
            } => format!(
                "an echo: this move left before the correction of move @{} ms reached the \
                 client (applied at {:.3} s); the client had already replayed to within \
                 {residual_cm:.1} cm, so nothing new went wrong",
                of.0,
                applied.secs_since(SimTime::ZERO)
            ),
            Cause::ForcedRoll => "nothing differed: the forced-adjustment roll picked it".into(),
            Cause::ClientOnly { what } => {
                format!("a client-only effect the server does not simulate: {what}")
            }
            Cause::MissedInputs { ticks, packets } => format!(
                "the server held your last input for tick{} {}; {}",
                if ticks.len() == 1 { "" } else { "s" },
                ticks
                    .iter()
                    .map(u32::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
                if packets.is_empty() {
                    "no input packet carried them".to_owned()
                } else {
                    packets
                        .iter()
                        .map(packet_name)
                        .collect::<Vec<_>>()
                        .join(", ")
                }
            ),
            Cause::RemoteInputs => {
                "another player's input changed while you predicted it by hold-last".into()
            }
            Cause::Unexplained => {
                "no lost move or server-only effect in the episode: small errors added up".into()
            }
            Cause::LateMoves {
                moves,
                covered_by,
                packets,
            } => format!(
                "{} reached the server only after a newer move had ({}): it ignored them as \
                 old and covered their time with move @{} ms",
                moves.iter().map(move_name).collect::<Vec<_>>().join(", "),
                packets
                    .iter()
                    .map(packet_name)
                    .collect::<Vec<_>>()
                    .join(", "),
                covered_by.0
            ),
            Cause::NotInTrace => "no ServerMove of the episode was lost or late as the relay \
                 saw them; what the server did with each move (clamps, time discrepancy, push \
                 zones) stays on the relay"
                .into(),
        }
    }
}

/// One correction explained.
#[derive(Debug, Clone, PartialEq)]
pub struct Story {
    /// What was corrected: "Adjustment of move @1234 ms" or "Rollback of
    /// ticks 310–322".
    pub subject: String,
    /// The frame during which it was applied.
    pub frame: usize,
    /// When it was applied.
    pub at: SimTime,
    /// Which rule fired.
    pub rule: Rule,
    /// Where the client had itself (CMC: the reported location; rollback:
    /// the old prediction), cm.
    pub client: Vec2,
    /// Where the server had it (rollback: after re-simulation), cm.
    pub server: Vec2,
    /// What made them differ, oldest first.
    pub causes: Vec<Cause>,
    /// The moves or ticks replayed, with their inputs (CMC: the moves;
    /// rollback: empty, see `replayed_count`).
    pub replayed: Vec<ClientMoveRecord>,
    /// How many moves or ticks were replayed.
    pub replayed_count: u32,
    /// CMC with reconciliation off: the client dropped its unacknowledged
    /// moves instead of replaying them (`000_…` §6.3–§6.4 not done).
    pub dropped: bool,
    /// The episode's start: where the timeline should look, and the
    /// moment whose frame ([`Inspection::frame_of`]) the what-ifs other
    /// than a delivery are applied before (rollback: at most
    /// 2 s, `EPISODE_MS`, before `at`, after the previous correction's
    /// frame).
    pub from: SimTime,
    /// The network's doing, or a long frame of the client's.
    pub origin: Origin,
    /// What-ifs that may make it go the other way (filled by
    /// [`Inspection::explain`]).
    pub forks: Vec<ForkOption>,
}

impl Story {
    /// Explains correction `c` of inspection `ins`.
    pub(super) fn of(ins: &Inspection, c: &Correction) -> Story {
        match &c.what {
            Corrected::Move(rec) => cmc_story(ins, c, rec),
            Corrected::Rollback(e) => rollback_story(ins, c, e),
        }
    }

    /// The error vector, server minus client, cm.
    pub fn error(&self) -> Vec2 {
        self.server - self.client
    }

    /// Every packet the causes name.
    pub fn cause_packets(&self) -> impl Iterator<Item = &PacketRecord> {
        self.causes.iter().flat_map(Cause::packets)
    }

    /// The story in plain lines, for the inspector panel.
    pub fn lines(&self) -> Vec<String> {
        let e = self.error();
        let mut out = vec![
            format!(
                "{} — applied at {:.3} s (frame {})",
                self.subject,
                self.at.secs_since(SimTime::ZERO),
                self.frame
            ),
            format!("Rule: {}", self.rule.describe()),
            format!("Origin: {}", self.origin.describe()),
            format!(
                "Client ({:.1}, {:.1}) cm, server ({:.1}, {:.1}) cm: error ({:+.1}, {:+.1}) cm, \
                 {:.1} cm",
                self.client.x,
                self.client.y,
                self.server.x,
                self.server.y,
                e.x,
                e.y,
                e.length()
            ),
        ];
        out.extend(
            self.causes
                .iter()
                .map(|c| format!("Cause: {}", c.describe())),
        );
        let replayed: Vec<String> = self
            .replayed
            .iter()
            .map(|m| format!("@{} {}", m.time_stamp.0, input_name(&m.input)))
            .collect();
        out.push(if self.dropped {
            "Replayed nothing: reconciliation off, the unacknowledged moves were dropped".to_owned()
        } else if replayed.is_empty() {
            format!("Re-simulated {} ticks", self.replayed_count)
        } else {
            format!(
                "Replayed {} moves: {}",
                self.replayed_count,
                replayed.join(", ")
            )
        });
        out
    }
}

fn cmc_story(ins: &Inspection, c: &Correction, rec: &CorrectionRecord) -> Story {
    let run = ins.run();
    let setup = ins.scenario().settings_at(c.frame);
    let server: Vec<&MoveRecord> = run
        .host()
        .cmc()
        .map(|s| s.move_log().filter(|r| r.at <= c.at).collect())
        .unwrap_or_default();
    let client: Vec<&ClientMoveRecord> = run
        .endpoint()
        .cmc()
        .map(|cl| cl.move_log().collect())
        .unwrap_or_default();
    let packets = run.host().packets();
    let check = server.iter().rposition(|r| {
        r.time_stamp == rec.time_stamp
            && matches!(
                r.outcome,
                MoveOutcome::Checked {
                    verdict: Some(_),
                    ..
                }
            )
    });
    let (reported, authoritative) = match check.map(|i| server[i].outcome) {
        Some(MoveOutcome::Checked { client, server, .. }) => (client, server),
        _ => (rec.snap, rec.snap),
    };
    let end = check.unwrap_or(server.len());
    let end_at = server.get(end).map_or(c.at, |r| r.at);
    // When the move left the client: the first packet carrying it as new.
    let sent = packets
        .and_then(|log| {
            log.carrying(rec.time_stamp.0)
                .filter(|p| p.detail == rec.time_stamp.0)
                .map(|p| p.sent)
                .min()
        })
        .unwrap_or(end_at);
    let earlier = |o: &&Correction| matches!(o.what, Corrected::Move(_)) && o.at < c.at;
    // A correction applied after this move left and before this one
    // arrived: the move was predicted from the state it corrected.
    let echo_of = ins
        .corrections()
        .iter()
        .filter(earlier)
        .rfind(|o| o.at >= sent);
    let mut causes = Vec::new();
    let from;
    let origin;
    if let (Some(original), true) = (echo_of, rec.is_redundant(limit_cm(&setup))) {
        // An echo is the correction it repeats over again: its origin and
        // its causes, down to the first, are that correction's.
        let first = Story::of(ins, original);
        origin = first.origin;
        let chain = first.causes;
        let Corrected::Move(first) = &original.what else {
            unreachable!("filtered to moves")
        };
        causes.push(Cause::Echo {
            of: first.time_stamp,
            applied: original.at,
            residual_cm: rec.residual_cm,
        });
        causes.extend(chain);
        from = original.at;
    } else {
        // The episode: the server's moves since the client last started
        // again from the server's state (the latest correction applied
        // before this move left), at most EPISODE_MS back.
        let resync = ins
            .corrections()
            .iter()
            .filter(earlier)
            .rfind(|o| o.at < sent)
            .map_or(SimTime::ZERO, |o| o.at);
        let floor = SimTime::ZERO.plus_micros(
            end_at
                .micros_since(SimTime::ZERO)
                .saturating_sub(EPISODE_MS * 1000),
        );
        let start = server[..end].partition_point(|r| r.at < resync.max(floor));
        let previous_ts = start.checked_sub(1).map_or(0, |i| server[i].time_stamp.0);
        causes = server_causes(&server[start..end], &client, previous_ts, packets);
        from = server.get(start).map_or(end_at, |r| r.at);
        let fast = setup.client.clock_speed > 1.0;
        origin = if fast && causes.iter().any(|c| matches!(c, Cause::TimeCut { .. })) {
            Origin::ClientClock {
                speed_percent: (setup.client.clock_speed * 100.0).round() as u32,
            }
        } else {
            Origin::of(ins.marks(), from, c.frame)
        };
    }
    if rec.reason == AdjustmentReason::Forced {
        causes.push(Cause::ForcedRoll);
    }
    if causes.is_empty() {
        if setup.client.speed_buff {
            causes.push(Cause::ClientOnly { what: "speed buff" });
        } else if setup.client.dash_outside_saved_move {
            causes.push(Cause::ClientOnly {
                what: "dash outside the SavedMove",
            });
        } else {
            causes.push(Cause::Unexplained);
        }
    }
    let replayed: Vec<ClientMoveRecord> = client
        .iter()
        .filter(|m| m.time_stamp.0 > rec.time_stamp.0)
        .take(rec.moves_replayed as usize)
        .map(|m| **m)
        .collect();
    Story {
        subject: format!("Adjustment of move @{} ms", rec.time_stamp.0),
        frame: c.frame,
        at: c.at,
        rule: cmc_rule(rec, &setup),
        client: reported,
        server: authoritative,
        causes,
        replayed,
        replayed_count: rec.moves_replayed,
        dropped: !setup.client.reconciliation,
        from,
        origin,
        forks: Vec::new(),
    }
}

/// The Adjustment threshold in force, cm.
pub(super) fn limit_cm(setup: &Setup) -> f32 {
    f32::from(setup.rules.max_position_error_tenth_cm) / 10.0
}

pub(super) fn cmc_rule(rec: &CorrectionRecord, setup: &Setup) -> Rule {
    match rec.reason {
        AdjustmentReason::PositionError => Rule::Threshold {
            error_cm: rec.error_cm,
            limit_cm: limit_cm(setup),
        },
        AdjustmentReason::Forced => Rule::ForcedAdjustment,
        AdjustmentReason::ForcedPositionUpdate => Rule::ForcedPositionUpdate,
        AdjustmentReason::TimeStampRejected => Rule::TimeStamp,
        AdjustmentReason::DeltaClamped => Rule::DeltaClamp,
        AdjustmentReason::TimeDiscrepancy => Rule::TimeDiscrepancy,
    }
}

/// The server-side causes in an episode: moves it never simulated (with
/// the packets that carried them), clamps, cuts, forced updates, pushes.
fn server_causes(
    episode: &[&MoveRecord],
    client: &[&ClientMoveRecord],
    mut previous_ts: u32,
    packets: Option<&crate::net::trace::PacketLog>,
) -> Vec<Cause> {
    let mut causes = Vec::new();
    // Moves missed whose input the server's matched: a longer step
    // integrates a little differently. Named only if nothing else is.
    let mut minor = Vec::new();
    for r in episode {
        match r.outcome {
            MoveOutcome::Simulated {
                covered_ms,
                simulated_s,
                input,
                pushed,
                ..
            } => {
                let ts = r.time_stamp.0;
                let missing: Vec<ClientMoveRecord> = client
                    .iter()
                    .filter(|m| m.time_stamp.0 > previous_ts && m.time_stamp.0 < ts)
                    .map(|m| **m)
                    .collect();
                previous_ts = ts;
                let differing: Vec<ClientMoveRecord> = missing
                    .iter()
                    .filter(|m| inputs_differ(&m.input, &input))
                    .copied()
                    .collect();
                let simulated_ms = (simulated_s * 1000.0).round() as u32;
                let cut = simulated_ms + 1 < covered_ms;
                if !differing.is_empty() {
                    causes.extend(missing_causes(differing, r.time_stamp, input, packets));
                } else if cut {
                    // The moves whose time this one covered are why it was
                    // long: the clamp's first cause.
                    causes.extend(missing_causes(missing, r.time_stamp, input, packets));
                } else {
                    minor.extend(missing_causes(missing, r.time_stamp, input, packets));
                }
                if cut {
                    let (time_stamp, covered_ms) = (r.time_stamp, covered_ms);
                    causes.push(if covered_ms > 125 {
                        Cause::Clamped {
                            time_stamp,
                            covered_ms,
                            simulated_ms,
                        }
                    } else {
                        Cause::TimeCut {
                            time_stamp,
                            covered_ms,
                            simulated_ms,
                        }
                    });
                }
                if pushed {
                    causes.push(Cause::PushZone {
                        time_stamp: r.time_stamp,
                    });
                }
            }
            MoveOutcome::Forced { dt_ms, .. } => {
                if let Some(Cause::ForcedUpdate {
                    times, total_ms, ..
                }) = causes.last_mut()
                {
                    *times += 1;
                    *total_ms += dt_ms;
                } else {
                    causes.push(Cause::ForcedUpdate {
                        times: 1,
                        total_ms: dt_ms,
                        packets: silent_packets(client, previous_ts, r.at, packets),
                    });
                }
                previous_ts = r.time_stamp.0;
            }
            MoveOutcome::Checked { .. } | MoveOutcome::Stale | MoveOutcome::TooFarAhead => {}
        }
    }
    if causes.is_empty() {
        // The newest few: older drift was mostly corrected by the Acks'
        // threshold check in between.
        minor.split_off(minor.len().saturating_sub(MINOR_CAUSES_SHOWN))
    } else {
        causes
    }
}

/// The ServerMoves that carried the client's moves after `last_ts` (the
/// last move the server took before a silence) and left before the first
/// forced update at `forced_at`, but did not arrive before it: lost, or
/// delivered later (held by a lag spike or a slow link).
fn silent_packets(
    client: &[&ClientMoveRecord],
    last_ts: u32,
    forced_at: SimTime,
    packets: Option<&crate::net::trace::PacketLog>,
) -> Vec<PacketRecord> {
    let Some(log) = packets else {
        return Vec::new();
    };
    let mut out: Vec<PacketRecord> = client
        .iter()
        .filter(|m| m.time_stamp.0 > last_ts)
        .flat_map(|m| log.carrying(m.time_stamp.0))
        .filter(|p| p.sent < forced_at)
        .filter(|p| match p.fate {
            Fate::Delivered { at, .. } => at >= forced_at,
            _ => true,
        })
        .copied()
        .collect();
    out.sort_by_key(|p| p.index);
    out.dedup_by_key(|p| p.index);
    out
}

/// Client moves between two simulated ones, split into those the client
/// dropped itself and those the link lost (with every packet that carried
/// them).
pub(super) fn missing_causes(
    missing: Vec<ClientMoveRecord>,
    covered_by: TimeStamp,
    server_input: MoveInput,
    packets: Option<&crate::net::trace::PacketLog>,
) -> Vec<Cause> {
    let (dropped, lost): (Vec<_>, Vec<_>) = missing.into_iter().partition(|m| m.dropped_by_client);
    let mut out = Vec::new();
    if !dropped.is_empty() {
        out.push(Cause::DroppedByClient { moves: dropped });
    }
    if !lost.is_empty() {
        let mut carriers: Vec<PacketRecord> = packets
            .map(|log| {
                lost.iter()
                    .flat_map(|m| log.carrying(m.time_stamp.0))
                    .copied()
                    .collect()
            })
            .unwrap_or_default();
        carriers.sort_by_key(|p| p.index);
        carriers.dedup_by_key(|p| p.index);
        out.push(Cause::MissingMoves {
            moves: lost,
            covered_by,
            server_input,
            packets: carriers,
        });
    }
    out
}

fn rollback_story(ins: &Inspection, c: &Correction, e: &RollbackEvent) -> Story {
    let setup = ins.scenario().settings_at(c.frame);
    let records = Records {
        corrections: ins.corrections(),
        marks: ins.marks(),
        packets: ins.run().host().packets(),
    };
    rollback_story_of(&records, &setup, c, e)
}

/// What a story reads of a run besides the correction itself: the run's
/// corrections and frame marks, and its packets.
pub(super) struct Records<'a> {
    /// Every correction of the run, in order.
    pub corrections: &'a [Correction],
    /// Where the run stood after each frame.
    pub marks: &'a [super::scrub::FrameMark],
    /// The packet timeline, if kept.
    pub packets: Option<&'a crate::net::trace::PacketLog>,
}

/// A rollback's story from a run's records and the settings in force.
pub(super) fn rollback_story_of(
    run: &Records,
    setup: &Setup,
    c: &Correction,
    e: &RollbackEvent,
) -> Story {
    let redundancy = match setup.model {
        crate::protocol::Model::Rollback(config) => u32::from(config.redundancy.max(1)),
        crate::protocol::Model::Cmc => 1,
    };
    let previous = run
        .corrections
        .iter()
        .filter(|o| o.at < c.at)
        .filter_map(|o| match &o.what {
            Corrected::Rollback(p) => Some(p.from.0),
            Corrected::Move(_) => None,
        })
        .next_back();
    let lo = previous.unwrap_or(0).max(e.from.0.saturating_sub(120));
    let (ticks, carriers) = run.packets.map_or((Vec::new(), Vec::new()), |log| {
        missed_ticks(log, lo, e.from.0, redundancy)
    });
    let (rule, cause) = if ticks.is_empty() {
        (Rule::RemoteInput, Cause::RemoteInputs)
    } else {
        (
            Rule::MissedInput,
            Cause::MissedInputs {
                ticks,
                packets: carriers,
            },
        )
    };
    let from = rollback_episode_start(run, setup, c, e);
    Story {
        subject: format!("Rollback of ticks {}–{}", e.from.0, e.to.0),
        frame: c.frame,
        at: c.at,
        rule,
        client: e.predicted,
        server: e.corrected,
        causes: vec![cause],
        replayed: Vec::new(),
        replayed_count: e.to.0.saturating_sub(e.from.0),
        dropped: false,
        from,
        origin: Origin::of(run.marks, from, c.frame),
        forks: Vec::new(),
    }
}

/// Where a rollback's episode starts: the moment (a frame's end, as
/// [`Inspection::frame_of`] reads it) of the frame in which the client
/// predicted the first tick the correction can have come from. The what-if
/// forks of a story are applied before that frame
/// ([`crate::scenario::ForkOption::frame`]), so the fork B is the run A up
/// to it, bit for bit, and every difference between them comes from the
/// change.
///
/// Every State the client accepts rebases it onto the server's history,
/// but only a visible difference of the local player counts as a rollback
/// (`001_…` §5.2 steps 4 and 6, §8). A visible rollback restoring tick
/// `e.from` therefore comes from the ticks the server decided before
/// `e.from` since the client's previous visible rollback restored its
/// State, at most [`EPISODE_MS`] of ticks at the tick rate in force
/// (`001_…` §4.3: the client keeps its inputs from the authoritative
/// snapshot on). Ticks are compared wrapping (`001_…` §9.4). The frame
/// that predicted the episode's first tick is the one that sent the
/// first Inputs packet whose newest tick is at or after it (without the
/// packet timeline: `e.to − tick` ticks before the correction).
///
/// Bounded like a CMC episode: never more than [`EPISODE_MS`] before the
/// correction, never at or before the frame of an earlier correction (so
/// a fork leaves every correction before this one as it was), and never
/// after the correction's own frame.
fn rollback_episode_start(
    run: &Records,
    setup: &Setup,
    c: &Correction,
    e: &RollbackEvent,
) -> SimTime {
    let rate = match setup.model {
        crate::protocol::Model::Rollback(config) => config.tick_rate,
        crate::protocol::Model::Cmc => crate::rollback::TickRate::Hz60,
    };
    let window = rate.ticks_in_ms(EPISODE_MS as u32);
    let previous = run.corrections.iter().rfind(|o| o.frame < c.frame);
    let previous_restore = previous.and_then(|o| match &o.what {
        Corrected::Rollback(p) if e.from.is_after(p.from) => Some(p.from),
        _ => None,
    });
    let first = match previous_restore {
        Some(p) if e.from.diff(p) as u32 <= window => p,
        _ => e.from.minus(window),
    };
    let predicted = run
        .packets
        .and_then(|log| {
            log.records()
                .iter()
                .filter(|p| p.direction == Direction::Up && p.kind == PacketKind::Inputs)
                .filter(|p| p.sent <= c.at)
                .find(|p| Tick(p.detail).diff(first) >= 0)
                .map(|p| p.sent)
        })
        .unwrap_or_else(|| {
            let ticks = e.to.diff(first).max(0) as u64;
            SimTime(c.at.0.saturating_sub(rate.micros_at(ticks)))
        });
    let floor = SimTime(c.at.0.saturating_sub(EPISODE_MS * 1000));
    // The moment of the first frame after the previous correction.
    let after_previous = previous
        .and_then(|o| run.marks.get(o.frame + 1))
        .map_or(SimTime::ZERO, |m| m.end);
    predicted.max(floor).max(after_previous).min(c.at)
}

/// Ticks in `lo..hi` the server decided without the client's input (its
/// Ack's missed count grew), and the input packets that carried them
/// (each carries its newest tick and the `redundancy − 1` before it).
fn missed_ticks(
    log: &crate::net::trace::PacketLog,
    lo: u32,
    hi: u32,
    redundancy: u32,
) -> (Vec<u32>, Vec<PacketRecord>) {
    let mut ticks = Vec::new();
    let mut missed_before = None;
    for p in log.records() {
        if p.direction != Direction::Down || p.kind != PacketKind::RollbackAck {
            continue;
        }
        let missed = p.also[0];
        if missed_before.is_some_and(|b| missed > b) && (lo..hi).contains(&p.detail) {
            ticks.push(p.detail);
        }
        missed_before = Some(missed);
    }
    let carriers = log
        .records()
        .iter()
        .filter(|p| p.kind == PacketKind::Inputs)
        .filter(|p| {
            ticks
                .iter()
                .any(|&t| p.detail >= t && p.detail < t + redundancy)
        })
        .copied()
        .collect();
    (ticks, carriers)
}

/// Inputs far enough apart to move the character differently: the
/// directions more than [`INPUT_DIFFERENCE`] apart, or one dashes.
pub(super) fn inputs_differ(a: &MoveInput, b: &MoveInput) -> bool {
    (a.direction() - b.direction()).length() > INPUT_DIFFERENCE || a.flags.dash() != b.flags.dash()
}

fn move_name(m: &ClientMoveRecord) -> String {
    format!("move @{} ms {}", m.time_stamp.0, input_name(&m.input))
}

fn input_name(i: &MoveInput) -> String {
    let d = i.direction();
    format!(
        "({:+.2}, {:+.2}){}",
        d.x,
        d.y,
        if i.flags.dash() { " dash" } else { "" }
    )
}

/// A packet and its fate in words.
pub(super) fn packet_name(p: &PacketRecord) -> String {
    let what = match p.kind {
        PacketKind::ServerMove => "ServerMove",
        PacketKind::Inputs => "Inputs",
        _ => "packet",
    };
    let sent = p.sent.secs_since(SimTime::ZERO);
    let fate = match p.fate {
        Fate::Lost { in_burst: true } => "lost in a burst".to_owned(),
        Fate::Lost { in_burst: false } => "lost".to_owned(),
        Fate::Overflowed => "dropped by a full queue".to_owned(),
        Fate::Delivered { at, overtook, .. } => format!(
            "arrived after {:.0} ms{}",
            at.secs_since(p.sent) * 1000.0,
            if overtook { ", overtaking" } else { "" }
        ),
    };
    format!("{what} #{} sent at {sent:.3} s, {fate}", p.index)
}
