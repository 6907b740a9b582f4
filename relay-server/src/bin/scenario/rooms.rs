//! `scenario room-replay` and `scenario room-fork`: a room's recording
//! (a CMC room's, or a rollback room's match) read from a file, an id or
//! a link, run again, and forked.

use crate::lookup::lookup;
use anyhow::{bail, Context};
use relay_server::store::{is_id, ItemKind, Location};
use sim::endpoints::room::recording::{RoomRecording, RoomRecordingFile};
use sim::endpoints::room::replay::{fork, replay, ReplayOutcome, RuleChange};
use sim::rollback::recording::{replay as match_replay_hashes, replay_line, MatchRecording};
use sim::room::config::{MAX_REWIND_CAP_MS, NET_UPDATE_HZ_RANGE};
use sim::room::Seq;
use std::path::Path;

/// Where a room recording comes from.
#[derive(Debug, clap::Args)]
pub struct RoomSource {
    /// A room recording: a file (compact bytes or JSON), the id of one
    /// saved with the page's Save link, or its `/?room-recording=ID` link
    /// (a rollback match's: `/?match-recording=ID`). May start with `-`,
    /// as ids may.
    #[arg(allow_hyphen_values = true)]
    pub source: String,
    /// Store to look ids and links up in, as the relay's `--db` (read
    /// only).
    #[arg(long, default_value = "data/scenarios.sqlite3", env = "PLAYGROUND_DB")]
    pub db: Location,
}

/// The one change `room-fork` makes (exactly one flag).
#[derive(Debug, clap::Args)]
#[group(required = true, multiple = false)]
pub struct ForkRule {
    /// Lag compensation off: every shot tested against the present.
    #[arg(long)]
    rewind_off: bool,
    /// Lag compensation capped at MS (0–1000, Source's `sv_maxunlag`):
    /// older shots are refused as too old.
    #[arg(long, value_name = "MS",
          value_parser = clap::value_parser!(u16).range(0..=i64::from(MAX_REWIND_CAP_MS)))]
    rewind_cap: Option<u16>,
    /// Every player's net updates at HZ (5–60): each shot redrawn from
    /// the updates that rate would have delivered, its aim kept.
    #[arg(long, value_name = "HZ",
          value_parser = clap::value_parser!(u8).range(i64::from(NET_UPDATE_HZ_RANGE.0)..=i64::from(NET_UPDATE_HZ_RANGE.1)))]
    net_update_hz: Option<u8>,
    /// Every screen drew by interpolation (render delay two intervals).
    #[arg(long)]
    interpolation: bool,
    /// Every screen drew by extrapolation, with no mesh offset.
    #[arg(long)]
    extrapolation: bool,
    /// Every net update the links lost delivered after all.
    #[arg(long)]
    deliver_lost: bool,
    /// The net update sent at TICK delivered after all, to whoever lost
    /// it: the tick the page's lane tip names ("↓ net update #N · tick
    /// TICK · … · lost").
    #[arg(long, value_name = "TICK")]
    deliver_lost_tick: Option<u32>,
}

impl ForkRule {
    /// The rule the flag names.
    pub fn change(&self) -> RuleChange {
        if let Some(ms) = self.rewind_cap {
            RuleChange::RewindCap { ms }
        } else if let Some(hz) = self.net_update_hz {
            RuleChange::NetUpdateHz { hz }
        } else if self.interpolation {
            RuleChange::Interpolation
        } else if self.extrapolation {
            RuleChange::Extrapolation
        } else if self.deliver_lost {
            RuleChange::DeliverLost { tick: None }
        } else if let Some(tick) = self.deliver_lost_tick {
            RuleChange::DeliverLost {
                tick: Some(Seq(tick)),
            }
        } else {
            RuleChange::RewindOff
        }
    }
}

/// What a room recording source holds: a CMC room's, or a rollback
/// room's match.
enum Recorded {
    /// A CMC room's, and the replay line a JSON file expects.
    Room(RoomRecording, Option<String>),
    /// A rollback match's (its hashes are inside), and the line a golden
    /// file (`scenarios/matches/*.json`) pins.
    Match(Box<MatchRecording>, Option<String>),
}

/// The recording `from` names (a file, or an id or link in the store),
/// either model: by the store's kind, the link's route, the JSON's shape
/// (a `compact` field: a CMC room's file), or else the decoder that
/// reads the bytes.
fn read_recording(from: &RoomSource) -> anyhow::Result<Recorded> {
    let (source, db) = (from.source.as_str(), &from.db);
    let path = Path::new(source);
    let linked = [
        "match-recording=",
        "match-recordings/",
        "room-recording=",
        "room-recordings/",
    ]
    .into_iter()
    .find_map(|route| source.rsplit_once(route).map(|(_, id)| (route, id)));
    let id = linked.map_or(source, |(_, id)| {
        id.split(['&', '#', '/']).next().unwrap_or(id)
    });
    let (bytes, kind) = if path.is_file() {
        let bytes = std::fs::read(path).with_context(|| format!("reading {source}"))?;
        (bytes, None)
    } else if is_id(id) {
        let row = lookup(db, id)
            .with_context(|| format!("opening the scenario store {db} (pass the relay's --db)"))?
            .with_context(|| {
                format!("no room recording with id {id} in {db} (pass the relay's --db)")
            })?;
        if row.kind == ItemKind::Scenario {
            bail!("{id} in {db} is a scenario, not a room recording: run `scenario run {id}`");
        }
        if let Some((route, _)) = linked {
            let linked_match = route.starts_with("match");
            if linked_match != (row.kind == ItemKind::Match) {
                bail!(
                    "{id} in {db} is a {} recording, but the link names a {} recording",
                    row.kind.as_str(),
                    if linked_match { "match" } else { "room" }
                );
            }
        }
        (row.bytes, Some(row.kind))
    } else {
        bail!("{source:?} is neither a file, a room recording id, nor a room recording link")
    };
    let what = || format!("room recording {source}");
    if bytes.trim_ascii_start().first() == Some(&b'{') {
        let text = std::str::from_utf8(&bytes).with_context(what)?;
        let shape: serde_json::Value = serde_json::from_str(text).with_context(what)?;
        if shape.get("compact").is_some() {
            let file = RoomRecordingFile::from_json(text).with_context(what)?;
            return Ok(Recorded::Room(
                file.recording().with_context(what)?,
                Some(file.replay),
            ));
        }
        let what = || format!("match recording {source}");
        // The golden suite's file: the recording inside, with the
        // numbers it pins (`ticks`, `final_hash`, `digest`).
        if let Some(inner) = shape.get("recording") {
            let rec = MatchRecording::from_json(&inner.to_string()).with_context(what)?;
            let pinned = format!(
                "ticks={} last={} digest={}",
                shape["ticks"],
                shape["final_hash"].as_str().unwrap_or("?"),
                shape["digest"].as_str().unwrap_or("?")
            );
            return Ok(Recorded::Match(Box::new(rec), Some(pinned)));
        }
        let rec = MatchRecording::from_json(text).with_context(what)?;
        return Ok(Recorded::Match(Box::new(rec), None));
    }
    match kind {
        Some(ItemKind::Match) => Ok(Recorded::Match(
            Box::new(
                MatchRecording::from_bytes(&bytes)
                    .with_context(|| format!("match recording {source}"))?,
            ),
            None,
        )),
        Some(_) => Ok(Recorded::Room(
            RoomRecording::from_bytes(&bytes).with_context(what)?,
            None,
        )),
        // A file: whichever decoder reads it whole (each checks its
        // version, its layout and that no byte is left over).
        None => match RoomRecording::from_bytes(&bytes) {
            Ok(rec) => Ok(Recorded::Room(rec, None)),
            Err(room) => match MatchRecording::from_bytes(&bytes) {
                Ok(rec) => Ok(Recorded::Match(Box::new(rec), None)),
                Err(rollback) => bail!(
                    "{source} is neither a room recording ({room}) nor a match recording \
                     ({rollback})"
                ),
            },
        },
    }
}

/// The CMC room recording `from` names (`room-fork` forks a CMC room's
/// lag compensation, which a rollback match has not).
fn read_room(from: &RoomSource) -> anyhow::Result<(RoomRecording, Option<String>)> {
    match read_recording(from)? {
        Recorded::Room(rec, line) => Ok((rec, line)),
        Recorded::Match(..) => bail!(
            "{} is a rollback match recording: it has no lag compensation to fork (replay it \
             with `scenario room-replay`)",
            from.source
        ),
    }
}

/// Prints what the recording holds.
fn describe_room(source: &str, recording: &RoomRecording) {
    println!("recording:  {source}");
    println!(
        "room:       seed {} · {} inputs · {:.2} s{}",
        recording.seed,
        recording.events.len(),
        recording.seconds(),
        if recording.truncated {
            " · stopped at its input limit"
        } else {
            ""
        }
    );
}

/// The replay's first differing tick, in words.
fn divergence(out: &ReplayOutcome) -> String {
    match out.first_divergence {
        None => "none: every tick's hash is the recorded one".to_owned(),
        Some(tick) => format!(
            "from tick {tick} ({:.3} s)",
            tick as f64 / sim::room::config::TICK_HZ as f64
        ),
    }
}

/// `scenario room-replay`: `Ok(matches)`.
pub fn room_replay(from: &RoomSource) -> anyhow::Result<bool> {
    let (recording, expected) = match read_recording(from)? {
        Recorded::Room(rec, line) => (rec, line),
        Recorded::Match(rec, pinned) => return match_replay(&from.source, &rec, pinned),
    };
    describe_room(&from.source, &recording);
    let out = replay(&recording).with_context(|| format!("replaying {}", from.source))?;
    let line = out.line();
    println!("replay:     {line}");
    println!("divergence: {}", divergence(&out));
    let same_line = expected.as_ref().is_none_or(|e| *e == line);
    if let Some(e) = expected.filter(|_| !same_line) {
        println!("expected:   {e}");
    }
    Ok(out.first_divergence.is_none() && same_line)
}

/// `scenario room-replay` of a rollback match recording: replays it and
/// compares every tick's hash with the recorded one (and the line with the
/// one a golden file pins, `pinned`). `Ok(matches)`.
fn match_replay(
    source: &str,
    rec: &MatchRecording,
    pinned: Option<String>,
) -> anyhow::Result<bool> {
    let hz = rec.config.tick_rate.hz();
    println!("recording:  {source}");
    println!(
        "match:      {} · {} seats · {} joins · {} ticks · {:.2} s at {hz} Hz{}",
        rec.match_id,
        rec.seats(),
        rec.joins.len(),
        rec.ticks.len(),
        rec.seconds(),
        if rec.truncated {
            " · stopped at its tick limit"
        } else {
            ""
        }
    );
    let out = match_replay_hashes(rec).with_context(|| format!("replaying {source}"))?;
    let recorded = replay_line(&rec.hashes());
    println!("recorded:   {recorded}");
    println!("replay:     {}", out.line());
    let mismatch = rec.first_mismatch(&out);
    match mismatch {
        None => println!("divergence: none: every tick's hash is the recorded one"),
        Some(tick) => {
            let i = tick.0.wrapping_sub(rec.start.tick.0) as usize;
            println!(
                "divergence: from tick {} ({:.3} s into the recording)",
                tick.0,
                i as f64 / f64::from(hz)
            );
        }
    }
    let same_line = pinned.as_ref().is_none_or(|p| *p == recorded);
    if let Some(p) = pinned.filter(|_| !same_line) {
        println!("expected:   {p}");
    }
    Ok(mismatch.is_none() && out.line() == recorded && same_line)
}

/// `scenario room-fork`: `Ok(the recording replays as recorded)`.
pub fn room_fork(from: &RoomSource, change: RuleChange) -> anyhow::Result<bool> {
    let (recording, _) = read_room(from)?;
    describe_room(&from.source, &recording);
    let f = fork(&recording, change).with_context(|| format!("replaying {}", from.source))?;
    println!("replay:     {}", f.base.line());
    println!("divergence: {}", divergence(&f.base));
    println!("fork:       {change}: {}", f.forked.line());
    if let Some(n) = f.redrawn {
        println!("redrawn:    {n} shots drawn otherwise, each with its aim as fired");
    }
    println!(
        "changed:    {} of {} shots",
        f.changes.len(),
        f.base.shots.len()
    );
    for c in &f.changes {
        println!("  {c}");
    }
    Ok(f.base.first_divergence.is_none())
}
