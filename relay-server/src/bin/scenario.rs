//! `scenario`: runs a saved scenario without a browser and prints its
//! outcome — the same numbers and hashes the page shows at the end of a
//! replay, so a saved scenario doubles as a regression test.
//!
//! ```text
//! scenario run data/rubber-band.json          # a JSON file (GET /api/scenarios/{id}), either model
//! scenario run Xy3_kq9LmN0a                   # an id in the relay's store (--db)
//! scenario run 'http://localhost:8080/s/Xy3_kq9LmN0a'
//! scenario run 'http://localhost:8080/#s=AQ…' # a self-contained link
//! scenario run rubber.bin --csv path.csv      # + the trajectory, one row per frame
//! scenario bless scenarios/*.json             # record what this build gives
//! scenario room-replay lobby.bin              # a room's recording (GET /api/rooms/lobby/recording)
//! scenario room-replay scenarios/rooms/duel-150-200ms-3pct.json
//! scenario room-replay 'http://localhost:8080/?room-recording=Xy3_kq9LmN0a' # a saved one (--db)
//! scenario room-replay match.bin              # a rollback room's match (GET /api/rooms/duel/recording)
//! scenario room-replay scenarios/matches/arena-duel.json
//! scenario room-replay 'http://localhost:8080/?match-recording=Xy3_kq9LmN0a' # a saved match (--db)
//! scenario room-fork lobby.json --rewind-off  # which verdicts lag compensation decided
//! scenario room-fork lobby.json --rewind-cap 100
//! ```
//!
//! Scenarios of every version are read, upgraded to this build's
//! (`sim::scenario::migrate`). The verdict line compares the run with the
//! outcome recorded with the scenario: *identical to the original*, or
//! *recorded with an older model; this replay differs from the original
//! from 12 s* (when the model changed since it was saved).
//!
//! Exit status: 0 when the run matches the outcome recorded with the
//! scenario (or none was recorded), 1 when it does not, 2 on bad input.
//! `bless` rewrites each file's recorded outcome with the one this build
//! gives (keeping the file's form, JSON or compact) — for the golden suite
//! in `scenarios/` when a change of the model's behaviour is meant.
//!
//! `room-replay` runs a shared room's authority again from its recording
//! (`sim::endpoints::room::replay`): the compact bytes or a JSON
//! `RoomRecordingFile` (the golden suite's `scenarios/rooms/*.json`, or
//! the relay's `GET /api/rooms/{name}/recording` with `Accept:
//! application/json`), or one saved with the page's Save link — its id or
//! its `/?room-recording=ID` link, looked up in the relay's store
//! (`--db`). Exit 0 when every tick's hash is the recorded one
//! and the replay's line is the file's, 1 from the first tick that
//! differs (printed), 2 for a file that is not a room recording.
//! It replays a rollback room's match recording the same way
//! (`sim::rollback::recording::replay`: `MatchRecording`'s compact bytes,
//! as `GET /api/rooms/{name}/recording` answers with
//! `X-Room-Recording-Model: rollback` and `/api/match-recordings/{id}`
//! serves, or its JSON, the golden suite's `scenarios/matches/*.json`),
//! or a saved one by id or `/?match-recording=ID` link: told apart by the
//! store's kind, the link, the JSON's shape, or else by which decoder
//! reads the bytes. It prints the recorded line and the replay's
//! (`ticks=<n> last=<16 hex> digest=<16 hex>`); exit 0 when every tick's
//! replayed hash is the recorded one.
//! `room-fork` replays it again with one rule of lag compensation changed
//! for every player and prints the verdicts that change.

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use relay_server::store::{
    is_id, ItemKind, Location, PgStore, ScenarioStore, SqliteStore, StoredScenario,
};
use sim::endpoints::room::recording::{RoomRecording, RoomRecordingFile};
use sim::endpoints::room::replay::{fork, replay, ReplayOutcome, RuleChange};
use sim::rollback::recording::{replay as match_replay_hashes, replay_line, MatchRecording};
use sim::scenario::codec::{self, Decoded};
use sim::scenario::{Outcome, Verdict};
use sim::{Model, Scenario, ScenarioRun};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Runs Netcode Playground scenarios headless and prints their outcome.
#[derive(Debug, Parser)]
#[command(
    version,
    about = "Runs Netcode Playground scenarios headless and prints their outcome (exit 0: matches the recording, 1: differs, 2: bad input)"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run a scenario and print its outcome.
    Run {
        /// A scenario file (JSON or compact bytes), a scenario id, a
        /// `/s/{id}` link or a `#s=` link. May start with `-` (one id in 64
        /// does: base64url's alphabet has it).
        #[arg(allow_hyphen_values = true)]
        source: String,
        /// Store to look ids and `/s/` links up in, as the relay's `--db`:
        /// a SQLite file or a `postgres://` URL (read only). The CLI does
        /// not fetch over HTTP: for a remote relay, download
        /// `/api/scenarios/{id}` and pass the file.
        #[arg(long, default_value = "data/scenarios.sqlite3", env = "PLAYGROUND_DB")]
        db: Location,
        /// Write the trajectory as CSV, one row per frame.
        #[arg(long)]
        csv: Option<PathBuf>,
        /// Print the outcome as one JSON object instead of lines.
        #[arg(long)]
        json: bool,
    },
    /// Replay a room's recording — a CMC room's or a rollback room's
    /// match — and check it gives the recorded tick hashes (and, for a CMC
    /// room's JSON file, its `replay` line).
    RoomReplay {
        #[command(flatten)]
        source: RoomSource,
    },
    /// Replay a room's recording with one rule of lag compensation
    /// changed for every player, and print the verdicts that change.
    #[command(group = clap::ArgGroup::new("rule").required(true))]
    RoomFork {
        #[command(flatten)]
        source: RoomSource,
        /// Lag compensation off: every shot tested against the present.
        #[arg(long, group = "rule")]
        rewind_off: bool,
        /// Lag compensation capped at MS (0–1000, Source's
        /// `sv_maxunlag`): older shots are refused as too old.
        #[arg(long, group = "rule", value_name = "MS",
              value_parser = clap::value_parser!(u16).range(0..=i64::from(sim::room::config::MAX_REWIND_CAP_MS)))]
        rewind_cap: Option<u16>,
    },
    /// Replay scenario files and write the outcome this build gives into
    /// each (a deliberate change of behaviour; prints old → new).
    Bless {
        /// Scenario files (JSON or compact bytes).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// Where a room recording comes from.
#[derive(Debug, clap::Args)]
struct RoomSource {
    /// A room recording: a file (compact bytes or JSON), the id of one
    /// saved with the page's Save link, or its `/?room-recording=ID` link
    /// (a rollback match's: `/?match-recording=ID`). May start with `-`,
    /// as ids may.
    #[arg(allow_hyphen_values = true)]
    source: String,
    /// Store to look ids and links up in, as the relay's `--db` (read
    /// only).
    #[arg(long, default_value = "data/scenarios.sqlite3", env = "PLAYGROUND_DB")]
    db: Location,
}

/// Reads a scenario of any version from whatever `source` names.
fn load(source: &str, db: &Location) -> anyhow::Result<Decoded> {
    if let Some((_, fragment)) = source.split_once("#s=") {
        return codec::open_fragment(fragment).context("reading the link's scenario");
    }
    let id = source
        .rsplit_once("/s/")
        .map_or(source, |(_, id)| id.trim_end_matches('/'));
    let path = PathBuf::from(source);
    if path.is_file() {
        return read_file(&path);
    }
    if is_id(id) {
        let row = lookup(db, id)
            .with_context(|| {
                format!(
                    "opening the scenario store {db} (pass the relay's --db; for a remote relay \
                     download /api/scenarios/{id} and run the file)"
                )
            })?
            .with_context(|| {
                format!(
                    "no scenario with id {id} in {db} (pass the relay's --db; for a remote relay \
                     download /api/scenarios/{id} and run the file)"
                )
            })?;
        if row.kind != ItemKind::Scenario {
            let what = match row.kind {
                ItemKind::Match => "a match recording",
                _ => "a room recording",
            };
            bail!("{id} in {db} is {what}, not a scenario: run `scenario room-replay {id}`");
        }
        return codec::open(&row.bytes).with_context(|| format!("stored scenario {id}"));
    }
    bail!("{source:?} is neither a file, a scenario id, nor a scenario link")
}

/// Reads a scenario file of any version: JSON (as `GET
/// /api/scenarios/{id}` serves it) or the compact bytes.
fn read_file(path: &Path) -> anyhow::Result<Decoded> {
    let bytes = std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    codec::open_file(&bytes).with_context(|| format!("scenario file {}", path.display()))
}

/// The row `id` names in the store at `db`, read only.
fn lookup(db: &Location, id: &str) -> anyhow::Result<Option<StoredScenario>> {
    Ok(match db {
        Location::Sqlite(path) => SqliteStore::open_read_only(path)?.get_blocking(id)?,
        Location::Postgres(url) => tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?
            .block_on(async { PgStore::connect_existing(url).await?.get(id).await })?,
    })
}

/// Plays `scenario`, writing one CSV row per frame to `csv` if given. In
/// a rollback run the CMC-named columns hold the analogous numbers
/// ([`Outcome`]): `queue_len` is the ticks predicted past the last
/// confirmed State, `adjustments` the visible rollbacks, `replayed_moves`
/// the re-simulated ticks.
fn play(scenario: Scenario, mut csv: Option<Box<dyn Write>>) -> anyhow::Result<(Outcome, Model)> {
    let mut run = ScenarioRun::play(scenario);
    if let Some(w) = csv.as_mut() {
        writeln!(
            w,
            "frame,time_s,x_cm,y_cm,vx_cm_s,vy_cm_s,queue_len,adjustments,replayed_moves,model"
        )?;
    }
    while run.step_recorded() {
        if let Some(w) = csv.as_mut() {
            let (p, v) = (run.endpoint().position(), run.endpoint().velocity());
            let model = run.endpoint().model().name();
            let m = run.metrics();
            writeln!(
                w,
                "{},{:.6},{},{},{},{},{},{},{},{model}",
                run.frame_index(),
                run.elapsed_secs(),
                p.x,
                p.y,
                v.x,
                v.y,
                m.queue_len,
                m.adjustments,
                m.replayed_moves
            )?;
        }
    }
    if let Some(w) = csv.as_mut() {
        w.flush()?;
    }
    Ok((run.outcome(), run.endpoint().model()))
}

fn main() -> std::process::ExitCode {
    match real_main() {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::from(1),
        Err(e) => {
            eprintln!("error: {e:#}");
            std::process::ExitCode::from(2)
        }
    }
}

/// `Ok(matches)`.
fn real_main() -> anyhow::Result<bool> {
    match Cli::parse().command {
        Command::Run {
            source,
            db,
            csv,
            json,
        } => run(&source, &db, csv.as_deref(), json),
        Command::RoomReplay { source } => room_replay(&source),
        Command::RoomFork {
            source,
            rewind_off,
            rewind_cap,
        } => {
            let change = match (rewind_off, rewind_cap) {
                (_, Some(ms)) => RuleChange::RewindCap { ms },
                _ => RuleChange::RewindOff,
            };
            room_fork(&source, change)
        }
        Command::Bless { files } => {
            for file in files {
                bless(&file)?;
            }
            Ok(true)
        }
    }
}

/// Replays the scenario in `file` and writes the outcome into it, in the
/// file's own form and this build's version (never run it on
/// `scenarios/frozen/`: those files keep the version they were saved as).
fn bless(file: &Path) -> anyhow::Result<()> {
    let mut scenario = read_file(file)?.scenario;
    let old = scenario.outcome.take();
    let (new, _) = play(scenario.clone(), None)?;
    scenario.outcome = Some(new.clone());
    let bytes = std::fs::read(file)?;
    let out = if bytes.first() == Some(&b'{') {
        let mut json = serde_json::to_vec(&scenario)?;
        json.push(b'\n');
        json
    } else {
        codec::encode(&scenario)
    };
    std::fs::write(file, out).with_context(|| format!("writing {}", file.display()))?;
    let same = Verdict::of(old.as_ref(), &new) == Verdict::Identical;
    println!(
        "{}: trajectory-hash {} → {:016x} · {} adjustments{}",
        file.display(),
        old.map_or("none".to_owned(), |o| format!("{:016x}", o.trajectory_hash)),
        new.trajectory_hash,
        new.adjustments,
        if same { " (unchanged)" } else { "" }
    );
    Ok(())
}

/// `scenario run`: `Ok(matches)`.
fn run(source: &str, db: &Location, csv: Option<&Path>, json: bool) -> anyhow::Result<bool> {
    let Decoded {
        scenario,
        saved_version,
    } = load(source, db)?;
    let recorded = scenario.outcome.clone();
    let (name, seed, secs, version) = (
        scenario.name.clone(),
        scenario.seed,
        scenario.duration_secs(),
        scenario.version,
    );
    let csv: Option<Box<dyn Write>> = match csv {
        Some(p) => Some(Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("creating {}", p.display()))?,
        ))),
        None => None,
    };
    let (o, model) = play(scenario, csv)?;
    let verdict = Verdict::of(recorded.as_ref(), &o);
    if json {
        println!(
            "{}",
            serde_json::json!({
                "name": name, "seed": seed, "duration_s": secs, "frames": o.frames,
                "saved_version": saved_version, "version": version,
                "model": model.name(),
                "state_hash": format!("{:016x}", o.state_hash),
                "trajectory_hash": format!("{:016x}", o.trajectory_hash),
                "adjustments": o.adjustments, "replayed_moves": o.replayed_moves,
                "acks": o.acks, "moves_sent": o.moves_sent,
                "matches_recording": recorded.as_ref().map(|_| verdict.is_ok()),
                "verdict": verdict.to_string(),
                "differs_from_s": verdict.differs_from_secs(),
            })
        );
    } else {
        // The outcome's counters under the model's own names.
        let names = match model {
            Model::Cmc => ["adjustments", "replayed-moves", "acks", "moves-sent"],
            Model::Rollback(_) => ["rollbacks", "resimulated-ticks", "acks", "input-packets"],
        };
        let counters = [o.adjustments, o.replayed_moves, o.acks, o.moves_sent];
        println!("scenario:        {name}");
        if saved_version == version {
            println!("version:         {version}");
        } else {
            println!("version:         {saved_version}, upgraded to {version}");
        }
        println!("model:           {}", model.name());
        println!("seed:            {seed}");
        println!("frames:          {} ({secs:.2} s)", o.frames);
        println!("state-hash:      {:016x}", o.state_hash);
        println!("trajectory-hash: {:016x}", o.trajectory_hash);
        for (name, n) in names.iter().zip(counters) {
            println!("{:<16} {n}", format!("{name}:"));
        }
        println!("verdict:         {verdict}");
        if let (Some(r), false) = (&recorded, verdict.is_ok()) {
            println!(
                "recorded:        state-hash {:016x} · trajectory-hash {:016x} · {} adjustments · {} replayed-moves · {} acks · {} moves-sent · {} frames",
                r.state_hash, r.trajectory_hash, r.adjustments, r.replayed_moves, r.acks, r.moves_sent, r.frames
            );
        }
    }
    Ok(verdict.is_ok())
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
fn room_replay(from: &RoomSource) -> anyhow::Result<bool> {
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
fn room_fork(from: &RoomSource, change: RuleChange) -> anyhow::Result<bool> {
    let (recording, _) = read_room(from)?;
    describe_room(&from.source, &recording);
    let f = fork(&recording, change).with_context(|| format!("replaying {}", from.source))?;
    println!("replay:     {}", f.base.line());
    println!("divergence: {}", divergence(&f.base));
    println!("fork:       {change}: {}", f.forked.line());
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
