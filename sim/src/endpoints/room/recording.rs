//! [`RoomRecording`]: a CMC room's authoritative inputs, enough to run its
//! authority again bit for bit ([`super::replay`]).
//!
//! The host records (opt-in, [`super::RoomHost::record`]) what reached its
//! rules and nothing its links decided: every frame a player's uplink
//! conditioner *delivered*, at the poll that delivered it (the receive
//! time), the control messages that change the authority or a link (acted
//! on at once, as the host does), joins and leaves, and each bot as it was
//! put in (its tour and where it starts: a bot draws no random numbers).
//! The room's seed gives every player's link seed and forced-adjustment
//! roll ([`RecordedEvent::Join`] repeats it); their link settings are the
//! recorded `SetNetSettings`. The links themselves are not replayed: their
//! decisions are already in the delivery times. After each server tick the
//! host hashes its state (every character, weapon and shot counter) into
//! [`RoomRecording::tick_hashes`], which a replay must reproduce.
//!
//! ```text
//! add_player ──────────────► Join {at, id, link seed}
//! remove_player ───────────► Leave {id}
//! add_bot_with / respawn ──► AddBot / RespawnBot {at, id, bot, position}
//! receive_msg (a control) ─► Control {at, id, msg}
//! poll(now): uplinks deliver ► Poll {at: now, received}   (ticks and
//!            ticks ≤ now ─────► tick_hashes[k]            forced updates
//!                                                         follow from `at`)
//! ```
//!
//! Every poll that delivered something, ran a tick or was due a forced
//! position update (`000_…` §9.5, which moves a silent character by the
//! poll's time) is a [`RecordedEvent::Poll`]; the others change nothing.
//! Besides the inputs, each net update's fate on its player's downlink
//! ([`RecordedEvent::NetUpdate`], from version 2): not an input of the
//! rules, but what each player's screen drew the others from — what a
//! fork that changes how a screen draws ([`super::screen`]) rebuilds.
//! On the wire: [`RoomRecording::to_bytes`] (postcard, led by
//! [`ROOM_RECORDING_VERSION`], at most [`MAX_RECORDING_BYTES`]); in the
//! golden suite a [`RoomRecordingFile`] (JSON holding those bytes in
//! base64 and the replay's expected line).

use crate::foundation::bot::Bot;
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::protocol::ClientMsg;
use crate::room::config::RoomConfig;
use crate::room::replication::PlayerId;
use crate::room::wire::{Shot, ShotResult, Verdict};
use crate::room::Seq;
use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use thiserror::Error;

/// The format version that leads every encoded recording written; one
/// outside [`OLDEST_ROOM_RECORDING_VERSION`]`..=` it is refused with
/// [`RecordingError::UnknownVersion`]. Version 2 added
/// [`RecordedEvent::NetUpdate`] (a variant appended: version 1's bytes
/// read as they are, with no net updates).
pub const ROOM_RECORDING_VERSION: u16 = 2;

/// The oldest format version read.
pub const OLDEST_ROOM_RECORDING_VERSION: u16 = 1;

/// The largest encoded recording read or written, bytes (8 MiB: about 78
/// player-minutes at the 1.8 kB per player-second a 60 fps player at RTT
/// 150–200 ms records, `tests/room_recording.rs`).
pub const MAX_RECORDING_BYTES: usize = 8 << 20;

/// The longest room a recording may span, µs (1 h): a replay runs every
/// 60 Hz tick up to its last event, so a forged far-future time is refused
/// before it runs.
pub const MAX_RECORDING_SPAN_US: u64 = 3_600_000_000;

/// A CMC room's authoritative inputs from its creation: what
/// [`super::replay::replay`] runs again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoomRecording {
    /// The room's configuration when it was made (later changes of
    /// `MaxRecordTime` are recorded controls).
    pub config: RoomConfig,
    /// The room's seed: every player's link seed and forced-adjustment
    /// roll derive from it and their id.
    pub seed: u64,
    /// When the room was made (origin of its 60 Hz tick grid).
    pub created: SimTime,
    /// The inputs, in the order the host took them.
    pub events: Vec<RecordedEvent>,
    /// The host's state hash after each server tick, from tick 0
    /// ([`crate::foundation::hash::Fnv64`] over every player's id,
    /// position and velocity bits, ammo, actions handled and shot
    /// counters).
    pub tick_hashes: Vec<u64>,
    /// Recording stopped at its event limit: what is here is a whole
    /// shorter room, replayable as such.
    pub truncated: bool,
}

/// One input the host took.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum RecordedEvent {
    /// A remote player joined ([`super::RoomHost::add_player`]).
    Join {
        /// When.
        at: SimTime,
        /// The id they were given.
        id: PlayerId,
        /// Their link conditioners' and forced-adjustment roll's seed
        /// (derived from the room's; kept for a view from their side).
        link_seed: u64,
    },
    /// A player or bot left ([`super::RoomHost::remove_player`]).
    Leave {
        /// Who.
        id: PlayerId,
    },
    /// A bot was put in ([`super::RoomHost::add_bot_with`], or the
    /// `AddBot` control).
    AddBot {
        /// When.
        at: SimTime,
        /// The id it was given.
        id: PlayerId,
        /// Its tour and progress as it was put in.
        bot: Bot,
        /// Where it stood, cm.
        position: Vec2,
    },
    /// A bot was respawned ([`super::RoomHost::respawn_bot`]).
    RespawnBot {
        /// When.
        at: SimTime,
        /// Which bot.
        id: PlayerId,
        /// Its tour from there.
        bot: Bot,
        /// Where it reappeared, cm.
        position: Vec2,
    },
    /// A control message acted on at once: link settings, a lag spike,
    /// server rules, room switches, `MaxRecordTime`.
    Control {
        /// When it was received.
        at: SimTime,
        /// From whom.
        id: PlayerId,
        /// The message.
        msg: ClientMsg,
    },
    /// A poll of the host: the messages the uplinks delivered then (moves,
    /// time requests, shots, reloads; pings are the link's own), in the
    /// order handled, then forced updates and the ticks due.
    Poll {
        /// The poll's time: each message's receive time.
        at: SimTime,
        /// Sender and message.
        received: Vec<(PlayerId, ClientMsg)>,
    },
    /// A net update sent to a player at a tick, and what their downlink
    /// did with it (version 2 on; not an input: a replay passes it by).
    NetUpdate(NetUpdateFate),
}

/// One net update ([`crate::room::replication::ProxyBatch`]) on one
/// player's downlink: sent at a server tick (its `seq` and server time),
/// arrived or lost. The relay's socket adds nothing the page can tell
/// from this on localhost; over a real network it adds its own delay.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct NetUpdateFate {
    /// Whose downlink.
    pub to: PlayerId,
    /// The server time of the tick it was sent at: the batch's
    /// `server_time` (its `seq` is that tick's number).
    pub sent: SimTime,
    /// When it arrived (server clock), or `None`: lost or dropped by a
    /// full queue.
    pub arrived: Option<SimTime>,
}

impl NetUpdateFate {
    /// The number of the tick it was sent at (its batch's `seq`) in a
    /// room made at `created`: the `k` whose tick time,
    /// `created + ⌊k · 10⁶ / TICK_HZ⌋` µs, is `sent`.
    pub fn tick(&self, created: SimTime) -> u64 {
        let hz = crate::room::config::TICK_HZ;
        (self.sent.micros_since(created) * hz).div_ceil(1_000_000)
    }
}

impl RecordedEvent {
    /// When the host took it (`None` for a leave, which is timeless, and a
    /// net update, which the host did not take).
    fn at(&self) -> Option<SimTime> {
        match self {
            RecordedEvent::Leave { .. } | RecordedEvent::NetUpdate(_) => None,
            RecordedEvent::Join { at, .. }
            | RecordedEvent::AddBot { at, .. }
            | RecordedEvent::RespawnBot { at, .. }
            | RecordedEvent::Control { at, .. }
            | RecordedEvent::Poll { at, .. } => Some(*at),
        }
    }
}

/// A recording refused, or one that does not fit its room.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum RecordingError {
    /// More bytes than [`MAX_RECORDING_BYTES`] (read or written).
    #[error("the room recording is {len} bytes, over the {max}-byte limit")]
    TooLarge {
        /// Its size, bytes.
        len: usize,
        /// The limit, bytes.
        max: usize,
    },
    /// Led by a version this build does not read.
    #[error(
        "room recording version {0} is unknown (this build reads versions {OLDEST_ROOM_RECORDING_VERSION} to {ROOM_RECORDING_VERSION})"
    )]
    UnknownVersion(u16),
    /// The bytes (or the file's JSON or base64) did not decode.
    #[error("malformed room recording: {0}")]
    Malformed(String),
    /// It decoded but cannot be a room's: times going back, an event for
    /// a player who is not there, a setting out of range.
    #[error("invalid room recording: {0}")]
    Invalid(String),
    /// A fork of the players' screens asked of a recording that keeps no
    /// net update's fate (version 1, or a room that sent none).
    #[error("{0} needs the net updates' fates, which this recording does not keep (recorded before version 2)")]
    NoNetUpdates(String),
    /// A fork that delivers lost net updates asked of a recording in
    /// which none (or not the one named) was lost.
    #[error("nothing to deliver: {0}")]
    NothingToDeliver(String),
    /// [`super::RoomHost::record`] on a room that has already run or has
    /// players: a recording starts with the room.
    #[error("a room is recorded from its creation: this one has already run")]
    AlreadyStarted,
}

impl RoomRecording {
    /// The compact form: postcard, led by [`ROOM_RECORDING_VERSION`].
    ///
    /// # Errors
    /// [`RecordingError::TooLarge`] over [`MAX_RECORDING_BYTES`].
    pub fn to_bytes(&self) -> Result<Vec<u8>, RecordingError> {
        let bytes = postcard::to_allocvec(&(ROOM_RECORDING_VERSION, self))
            .map_err(|e| RecordingError::Malformed(e.to_string()))?;
        if bytes.len() > MAX_RECORDING_BYTES {
            return Err(RecordingError::TooLarge {
                len: bytes.len(),
                max: MAX_RECORDING_BYTES,
            });
        }
        Ok(bytes)
    }

    /// Reads [`RoomRecording::to_bytes`]'s form and checks it
    /// ([`RoomRecording::validate`]).
    ///
    /// # Errors
    /// [`RecordingError::TooLarge`] (checked first, before decoding),
    /// [`RecordingError::UnknownVersion`], [`RecordingError::Malformed`]
    /// (bad or trailing bytes), [`RecordingError::Invalid`].
    pub fn from_bytes(bytes: &[u8]) -> Result<RoomRecording, RecordingError> {
        if bytes.len() > MAX_RECORDING_BYTES {
            return Err(RecordingError::TooLarge {
                len: bytes.len(),
                max: MAX_RECORDING_BYTES,
            });
        }
        let malformed = |e: postcard::Error| RecordingError::Malformed(e.to_string());
        let (version, rest) = postcard::take_from_bytes::<u16>(bytes).map_err(malformed)?;
        if !(OLDEST_ROOM_RECORDING_VERSION..=ROOM_RECORDING_VERSION).contains(&version) {
            return Err(RecordingError::UnknownVersion(version));
        }
        let (recording, rest) =
            postcard::take_from_bytes::<RoomRecording>(rest).map_err(malformed)?;
        if !rest.is_empty() {
            return Err(RecordingError::Malformed(format!(
                "{} bytes after the end",
                rest.len()
            )));
        }
        recording.validate()?;
        Ok(recording)
    }

    /// Checks what a replay relies on: the configuration in range, every
    /// event within [`MAX_RECORDING_SPAN_US`] after the room's creation,
    /// at most one hash per tick that span holds. (Times need not grow:
    /// a driver that catches up acts on a control at its `now` and then
    /// polls the wake-ups before it, and the recording keeps that order.
    /// Who each event names is checked as the replay meets it.)
    ///
    /// # Errors
    /// [`RecordingError::Invalid`] naming the first fault.
    pub fn validate(&self) -> Result<(), RecordingError> {
        let invalid = |s: String| Err(RecordingError::Invalid(s));
        if let Err(e) = self.config.validate() {
            return invalid(format!("config: {e}"));
        }
        let mut last = self.created;
        for (k, at) in self.events.iter().filter_map(RecordedEvent::at).enumerate() {
            if at < self.created {
                return invalid(format!("event {k} is before the room"));
            }
            last = last.max(at);
        }
        let span = last.micros_since(self.created);
        if span > MAX_RECORDING_SPAN_US {
            return invalid(format!("spans {span} µs, over {MAX_RECORDING_SPAN_US}"));
        }
        // Tick k runs at `created + ⌊k · 10⁶ / TICK_HZ⌋` µs (the host's
        // `tick_time`): the ticks due by `span` are those with
        // k · 10⁶ < TICK_HZ · (span + 1) — a poll exactly at a tick's
        // floored time, as a relay's wake-up is, runs that tick.
        let ticks = (crate::room::config::TICK_HZ * (span + 1) - 1) / 1_000_000 + 1;
        if self.tick_hashes.len() as u64 > ticks {
            return invalid(format!(
                "{} tick hashes for {ticks} ticks",
                self.tick_hashes.len()
            ));
        }
        Ok(())
    }

    /// How long the room ran, s: the span of its tick hashes.
    pub fn seconds(&self) -> f64 {
        self.tick_hashes.len() as f64 / crate::room::config::TICK_HZ as f64
    }
}

/// A shot as the host answered it (each accepted or refused shot, in the
/// order judged).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct JudgedShot {
    /// When the host judged it.
    pub at: SimTime,
    /// Who fired.
    pub shooter: PlayerId,
    /// The shooter's action number: with `shooter`, the shot's id.
    pub seq: Seq,
    /// Hit head / body, miss, or why it was refused.
    pub verdict: Verdict,
    /// The character hit (on a miss, the one the ray passed closest to).
    pub target: Option<PlayerId>,
    /// How far back the host rewound, ms (0 with rewind off).
    pub rewind_ms: u16,
}

impl JudgedShot {
    /// "hit head 2", "miss", "rejected: too old": the verdict in words
    /// ([`Verdict::text`]) and, on a hit, whom.
    pub fn describe(&self) -> String {
        match (self.verdict.is_hit(), self.target) {
            (true, Some(t)) => format!("{} {}", self.verdict.text(), t.0),
            _ => self.verdict.text().to_owned(),
        }
    }
}

/// Every character where the server had it after one tick: what a
/// playback draws ([`super::playback`]).
#[derive(Debug, Clone, PartialEq)]
pub struct TickBodies {
    /// The tick's server time.
    pub at: SimTime,
    /// Each character in the room then (players and bots), by id
    /// ascending, and its authoritative position, cm.
    pub bodies: Vec<(PlayerId, Vec2)>,
}

/// A shot as fired and as answered: the ray the shooter sent and the
/// server's three views of its target (`003_…` 回溯算法).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShotDetail {
    /// The shot as it reached the host (ray, claimed times).
    pub shot: Shot,
    /// The host's answer (verdict, rewind, the target's views).
    pub result: ShotResult,
}

/// What a playback keeps besides hashes and verdicts: every tick's bodies
/// and every judged shot's detail, in the order of
/// [`Recorder::shots`] (refused shots have a detail too).
#[derive(Debug, Clone, Default)]
pub(crate) struct Detail {
    pub(crate) ticks: Vec<TickBodies>,
    pub(crate) shots: Vec<ShotDetail>,
}

/// What the host keeps while recording: the recording, its bound, and the
/// verdicts it gave (for [`super::replay`]).
#[derive(Debug, Clone)]
pub(crate) struct Recorder {
    pub(crate) recording: RoomRecording,
    /// At most this many events; then recording stops (`truncated`).
    max_events: usize,
    /// Events are kept; a replay, which has them already, keeps only the
    /// tick hashes and verdicts.
    keep_events: bool,
    pub(crate) shots: Vec<JudgedShot>,
    /// A playback's detail, when asked for.
    pub(crate) detail: Option<Detail>,
    /// A fork's own net updates, when it redraws screens from them
    /// ([`super::screen`]): taken as they come.
    pub(crate) net_updates: Option<Vec<NetUpdateFate>>,
}

impl Recorder {
    /// An empty recording of a room made with `config` and `seed` at
    /// `created`, of at most `max_events` events, or (`None`) a replay's:
    /// its tick hashes and verdicts only.
    pub(crate) fn new(
        config: RoomConfig,
        seed: u64,
        created: SimTime,
        max_events: Option<usize>,
    ) -> Recorder {
        Recorder {
            recording: RoomRecording {
                config,
                seed,
                created,
                events: Vec::new(),
                tick_hashes: Vec::new(),
                truncated: false,
            },
            max_events: max_events.unwrap_or(usize::MAX),
            keep_events: max_events.is_some(),
            shots: Vec::new(),
            detail: None,
            net_updates: None,
        }
    }

    /// Whether it still records.
    pub(crate) fn on(&self) -> bool {
        !self.recording.truncated
    }

    /// Whether it still takes events.
    pub(crate) fn takes_events(&self) -> bool {
        self.on() && self.keep_events
    }

    /// Adds `event`, or stops at the limit.
    pub(crate) fn event(&mut self, event: RecordedEvent) {
        if self.recording.events.len() >= self.max_events {
            self.recording.truncated = true;
        }
        if self.takes_events() {
            self.recording.events.push(event);
        }
    }

    /// Adds the state hash after the next tick.
    pub(crate) fn tick(&mut self, hash: u64) {
        if self.on() {
            self.recording.tick_hashes.push(hash);
        }
    }

    /// Adds a verdict.
    pub(crate) fn shot(&mut self, shot: JudgedShot) {
        if self.on() {
            self.shots.push(shot);
        }
    }
}

/// A room recording as a file of the golden suite (`scenarios/rooms/`):
/// JSON naming it, its compact bytes in base64 (what the page's wasm
/// takes), and the line its replay must give
/// ([`super::replay::ReplayOutcome::line`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoomRecordingFile {
    /// Short name.
    pub name: String,
    /// What the room did and what the replay pins.
    pub description: String,
    /// [`RoomRecording::to_bytes`] in standard base64.
    pub compact: String,
    /// The replay's expected line.
    pub replay: String,
}

impl RoomRecordingFile {
    /// A file holding `recording`, expected to replay to `replay`.
    ///
    /// # Errors
    /// As [`RoomRecording::to_bytes`].
    pub fn new(
        name: &str,
        description: &str,
        recording: &RoomRecording,
        replay: String,
    ) -> Result<RoomRecordingFile, RecordingError> {
        Ok(RoomRecordingFile {
            name: name.to_owned(),
            description: description.to_owned(),
            compact: STANDARD.encode(recording.to_bytes()?),
            replay,
        })
    }

    /// Reads a file's JSON.
    ///
    /// # Errors
    /// [`RecordingError::Malformed`] if it is not such a file.
    pub fn from_json(text: &str) -> Result<RoomRecordingFile, RecordingError> {
        serde_json::from_str(text).map_err(|e| RecordingError::Malformed(e.to_string()))
    }

    /// The file's JSON, pretty-printed.
    pub fn to_json(&self) -> String {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        text
    }

    /// The recording it holds.
    ///
    /// # Errors
    /// [`RecordingError::Malformed`] for bad base64, else as
    /// [`RoomRecording::from_bytes`].
    pub fn recording(&self) -> Result<RoomRecording, RecordingError> {
        let bytes = STANDARD
            .decode(&self.compact)
            .map_err(|e| RecordingError::Malformed(e.to_string()))?;
        RoomRecording::from_bytes(&bytes)
    }
}
