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

mod lookup;
mod rooms;

use anyhow::{bail, Context};
use clap::{Parser, Subcommand};
use lookup::lookup;
use relay_server::store::{is_id, ItemKind, Location};
use rooms::{room_fork, room_replay, ForkRule, RoomSource};
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
    /// Replay a room's recording with one rule of lag compensation, or
    /// of how the players' screens drew the others, changed for every
    /// player, and print the verdicts that change.
    RoomFork {
        #[command(flatten)]
        source: RoomSource,
        #[command(flatten)]
        rule: ForkRule,
    },
    /// Replay scenario files and write the outcome this build gives into
    /// each (a deliberate change of behaviour; prints old → new).
    Bless {
        /// Scenario files (JSON or compact bytes).
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
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
        Command::RoomFork { source, rule } => room_fork(&source, rule.change()),
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
