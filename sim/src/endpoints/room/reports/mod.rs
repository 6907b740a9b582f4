//! The public bug reports tried on rooms (issue #26), each turned into a
//! **golden room run**: a deterministic [`RoomSession`] — seeded, on a
//! virtual clock, through the product's own link conditioner and codec —
//! with a pinned outcome fingerprint, replayed natively
//! (`sim/tests/room_reports.rs`) and in wasm (the page's
//! `room_report` export, `e2e/golden.test.mjs`).
//!
//! [`REPORT_RUNS`] is the one list of them (what a later room recording
//! format turns into files). Each run is a parameterized run of
//! [`shots`], [`ammo`] or [`proxies`] with the report's case fixed; the
//! tests sweep the same runs over seeds and modes. A fingerprint folds
//! in, every frame, what the observing player's page shows — each other
//! character's drawn position (1/100 cm) and the ammo counter — and at
//! the end every verdict, with the boxes tested, and the server's
//! counters: a change of any of them changes it.

use super::session::RoomSession;
use crate::cmc::wire::NetPosition;
use crate::foundation::hash::Fnv64;
use crate::foundation::math::Vec2;
use crate::room::replication::PlayerId;

pub mod ammo;
pub mod proxies;
pub mod shots;

/// One render frame of every run, s (60 Hz).
pub const FRAME: f64 = 1.0 / 60.0;

/// A golden room run.
#[derive(Debug, Clone, Copy)]
pub struct ReportRun {
    /// Its name, after the report (`sbox-2931`).
    pub name: &'static str,
    /// The report, as people cite it.
    pub report: &'static str,
    /// What it showed and what the run pins.
    pub fault: &'static str,
    /// Runs it.
    pub run: fn() -> RunOutcome,
    /// The fingerprint it must give, natively and in wasm.
    pub pinned: u64,
}

/// What a run gave: its fingerprint and the numbers it measures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    /// Over every frame's view and the final verdicts and counters.
    pub fingerprint: u64,
    /// The run's own measures, by name, in a fixed order.
    pub measures: Vec<(&'static str, u64)>,
}

impl RunOutcome {
    /// A run whose room could not be set up (never with the defaults the
    /// runs use): fingerprint 0, nothing measured.
    fn failed() -> RunOutcome {
        RunOutcome {
            fingerprint: 0,
            measures: Vec::new(),
        }
    }

    /// The measure `name`.
    pub fn measure(&self, name: &str) -> Option<u64> {
        self.measures
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, v)| v)
    }

    /// `fingerprint=<16 hex> name=value …`: how the wasm export reports it.
    pub fn line(&self) -> String {
        let mut line = format!("fingerprint={:016x}", self.fingerprint);
        for (name, value) in &self.measures {
            line.push_str(&format!(" {name}={value}"));
        }
        line
    }
}

/// Every golden room run, one per report.
pub const REPORT_RUNS: [ReportRun; 8] = [
    ReportRun {
        name: "sbox-2931",
        report: "s&box #2931",
        fault: "the server rewound the target where its collision position was, not where the shooter drew it",
        run: shots::sbox_2931,
        pinned: 0xc3c2_7749_0f11_317f,
    },
    ReportRun {
        name: "etlegacy-1644",
        report: "etlegacy #1644",
        fault: "the frame history interpolated across a respawn 10 m away",
        run: shots::etlegacy_1644,
        pinned: 0x6387_020b_790d_7dae,
    },
    ReportRun {
        name: "garrysmod-4667",
        report: "garrysmod #4667",
        fault: "a teleport-distance check invalidates honest fast movement: none here, every dash record is kept",
        run: shots::garrysmod_4667,
        pinned: 0x8d30_348a_9886_af1c,
    },
    ReportRun {
        name: "chickynoid-29",
        report: "chickynoid #29",
        fault: "shots and reloads sent once were lost at 5 % uplink loss and the ammo counter jumped",
        run: ammo::chickynoid_29,
        pinned: 0x35bd_50a3_d2fa_d8c6,
    },
    ReportRun {
        name: "sbox-issues-2099",
        report: "Facepunch/sbox-issues #2099",
        fault: "a shot's verdict sent once was lost for good at 20 % downlink loss",
        run: ammo::sbox_issues_2099,
        pinned: 0x6690_e93d_df5b_417c,
    },
    ReportRun {
        name: "riseofthedead-875",
        report: "RiseOfTheDead #875",
        fault: "the first shot after a reload was refused as reloading",
        run: ammo::riseofthedead_875,
        pinned: 0x2fca_ee45_cd47_0882,
    },
    ReportRun {
        name: "mirror-3423",
        report: "Mirror #3423",
        fault: "interpolation ran dry and moved stop-go while the downlink was 100 ms slower",
        run: proxies::mirror_3423,
        pinned: 0xac21_86df_3768_d09b,
    },
    ReportRun {
        name: "lightyear-1450",
        report: "lightyear #1450",
        fault: "Linear smoothing restarted its ramp on every update: a stopped proxy took 3-6 times 0.1 s to settle",
        run: proxies::lightyear_1450,
        pinned: 0x49a8_b07a_d8c5_1637,
    },
];

/// The run named `name`.
pub fn find(name: &str) -> Option<&'static ReportRun> {
    REPORT_RUNS.iter().find(|r| r.name == name)
}

/// Folds what player `me`'s page shows, frame by frame, into a
/// fingerprint.
#[derive(Debug, Clone, Default)]
pub struct Recorder {
    hash: Fnv64,
}

impl Recorder {
    /// After a frame: every other character's drawn position (as 1/100
    /// cm) and the ammo counter.
    pub fn frame(&mut self, s: &RoomSession, me: PlayerId) {
        let Some(e) = s.endpoint(me) else { return };
        for p in e.proxies().iter() {
            let at = NetPosition::quantize(p.drawn_position());
            self.hash.u32(p.id().0).u32(at.x as u32).u32(at.y as u32);
        }
        self.hash.u32(e.ammo().shown().into());
    }

    /// Folds a value in (a verdict, a counter).
    pub fn value(&mut self, v: u64) -> &mut Recorder {
        self.hash.u64(v);
        self
    }

    /// Folds a position in, as 1/100 cm.
    pub fn position(&mut self, p: Vec2) -> &mut Recorder {
        let q = NetPosition::quantize(p);
        self.hash.u32(q.x as u32).u32(q.y as u32);
        self
    }

    /// The fingerprint.
    pub fn finish(&self) -> u64 {
        self.hash.finish()
    }
}
