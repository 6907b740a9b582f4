//! One column of panels' own view state ([`ColumnState`]): the Replayed
//! panel's memory (the CMC model's correction bursts, the rollback
//! model's rebases), the rollback players' display smoothing, the
//! Predicted panel's follow camera and the re-simulation clock. The main
//! column has one; the A/B view's B column another, fed by its own run.
//! Each frame the column's words ([`ColumnTexts`]) and its drawing
//! ([`ColumnFrame`]) come out in the model its endpoint runs.

use super::resim::ResimClock;
use crate::canvas::camera::FollowCamera;
use crate::canvas::{Frame, Layout};
use crate::cmc::captions;
use crate::cmc::corrections::{CorrectionLog, Group};
use crate::cmc::panels::{self as cmc_panels, CmcDraw};
use crate::rollback::captions as rollback_captions;
use crate::rollback::log::RollbackLog;
use crate::rollback::panels::{self as rollback_panels, RollbackDraw};
use crate::rollback::smoothing::DisplaySmoothing;
use crate::timeline::samples::Offsets;
use sim::rollback::arena::{BOT_PLAYER, CLIENT_PLAYER};
use sim::{ClientEndpoint, Vec2};

/// A column's panel words: footers, the Replayed panel's line, whether
/// its empty text shows, whether ◀ / ▶ have somewhere to go.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ColumnTexts {
    /// The Predicted panel's footer.
    pub predicted_foot: String,
    /// The Authoritative panel's footer.
    pub authoritative_foot: String,
    /// The Replayed panel's line under its title.
    pub replayed_sub: String,
    /// The Replayed panel's footer.
    pub replayed_foot: String,
    /// Nothing to replay yet: the empty text shows.
    pub empty: bool,
    /// ◀ has an older entry.
    pub older: bool,
    /// ▶ has a newer one (or the view is pinned).
    pub newer: bool,
}

/// See the module docs.
#[derive(Default)]
pub struct ColumnState {
    /// The CMC Replayed panel's correction bursts.
    pub corrections: CorrectionLog,
    /// The rollback Replayed panel's rebases.
    pub rebases: RollbackLog,
    /// The rollback players' drawn offsets.
    pub smoothing: DisplaySmoothing,
    /// The Predicted panel's follow camera.
    pub camera: FollowCamera,
    /// Wall time of the frames that re-simulated.
    pub resim: ResimClock,
    /// The model last seen (`cmc` / `rollback`): a switch starts afresh.
    model: Option<&'static str>,
}

/// Steps re-simulated so far: moves replayed (CMC) or ticks re-simulated
/// (rollback).
pub fn resimulated(ep: &ClientEndpoint) -> u64 {
    match (ep.cmc(), ep.rollback()) {
        (Some(c), _) => c.counters().replayed_moves,
        (None, Some(r)) => r.metrics().resimulated_ticks,
        (None, None) => 0,
    }
}

impl ColumnState {
    /// Forgets the run (a new one starts).
    pub fn reset(&mut self) {
        *self = ColumnState::default();
    }

    /// How far each character is drawn from where it is, cm: the CMC
    /// model's mesh offsets (yours, the simulated proxy's), the rollback
    /// model's display offsets (yours, the bot's).
    pub fn offsets(&self, ep: &ClientEndpoint) -> Offsets {
        match ep.rollback() {
            Some(_) => Offsets {
                mesh_cm: self.smoothing.offset(CLIENT_PLAYER).length(),
                proxy_cm: self.smoothing.offset(BOT_PLAYER).length(),
                ..Offsets::default()
            },
            None => Offsets {
                mesh_cm: ep
                    .cmc()
                    .map_or(0.0, |c| (c.drawn_position() - c.state().position).length()),
                proxy_cm: ep
                    .proxy()
                    .map_or(0.0, |p| (p.drawn_position() - p.position()).length()),
                proxy_extrapolation_cm: ep
                    .proxy()
                    .and_then(|p| p.extrapolation_error())
                    .unwrap_or(0.0),
                ..Offsets::default()
            },
        }
    }

    /// The run ran one frame in `elapsed_ms` of wall time.
    pub fn timed(&mut self, ep: &ClientEndpoint, elapsed_ms: f64) {
        self.resim.record(elapsed_ms, resimulated(ep));
    }

    /// Takes what the endpoint did this page frame (`dt` s of the run;
    /// `threshold_cm` judges a CMC correction redundant).
    pub fn update(&mut self, ep: &ClientEndpoint, threshold_cm: f32, dt: f32) {
        let model = ep.model().name();
        if self.model != Some(model) {
            self.model = Some(model);
            self.corrections.clear();
            self.rebases.clear();
            self.smoothing.reset();
        }
        if let Some(c) = ep.cmc() {
            self.corrections
                .update(c.corrections(), c.counters().adjustments, threshold_cm);
        }
        if let Some(r) = ep.rollback() {
            let m = r.metrics();
            self.rebases.update(r.last_rollback(), &m);
            self.smoothing
                .update(r.last_rollback(), m.rebases, ep.smoothing(), dt);
        }
    }

    /// ◀ / ▶ presses for whichever log the model shows.
    pub fn step(&mut self, rollback: bool, older: u32, newer: u32) {
        for _ in 0..older {
            if rollback {
                self.rebases.older();
            } else {
                self.corrections.older();
            }
        }
        for _ in 0..newer {
            if rollback {
                self.rebases.newer();
            } else {
                self.corrections.newer();
            }
        }
    }

    /// The correction burst the CMC Replayed panel shows.
    pub fn shown_group(&self) -> Option<&Group> {
        self.corrections.shown().map(|(g, _, _)| g)
    }

    /// Where the Predicted panel's follow camera looks after `dt` s, for a
    /// zoom of `zoom` (`None`: the whole arena).
    pub fn follow(
        &mut self,
        ep: &ClientEndpoint,
        zoom: Option<f32>,
        dt: f32,
    ) -> Option<(Vec2, f32)> {
        zoom.map(|z| {
            let drawn = match (ep.cmc(), ep.rollback()) {
                (Some(c), _) => c.drawn_position(),
                _ => ep.position() + self.smoothing.offset(CLIENT_PLAYER),
            };
            (self.camera.follow(drawn, dt), z)
        })
    }

    /// The panels' words for `ep` in the model it runs.
    pub fn texts(&self, ep: &ClientEndpoint) -> ColumnTexts {
        match ep.rollback() {
            Some(r) => {
                let m = r.metrics();
                let log = &self.rebases;
                let shown = log.shown();
                ColumnTexts {
                    predicted_foot: rollback_captions::predicted_foot(
                        r.tick(),
                        &m,
                        r.local_player(),
                    ),
                    authoritative_foot: rollback_captions::authoritative_foot(&r.server_totals()),
                    replayed_sub: rollback_captions::replayed_sub(shown, log.rebases()),
                    replayed_foot: rollback_captions::replayed_foot(
                        shown.map(|(e, _, _)| e),
                        log.confirmations_after_shown(),
                    ),
                    empty: shown.is_none(),
                    older: shown.is_some_and(|(_, i, _)| i > 1),
                    newer: !log.follows_newest(),
                }
            }
            None => {
                let c = &self.corrections;
                let shown = c.shown();
                ColumnTexts {
                    predicted_foot: ep
                        .cmc()
                        .map_or_else(String::new, |c| captions::predicted_foot(c, ep.smoothing())),
                    authoritative_foot: captions::authoritative_foot(&ep.server_totals()),
                    replayed_sub: captions::replayed_sub(shown),
                    replayed_foot: captions::replayed_foot(shown.map(|(g, _, _)| g)),
                    empty: shown.is_none(),
                    older: shown.is_some_and(|(_, i, _)| i > 1),
                    newer: !c.follows_newest(),
                }
            }
        }
    }

    /// What the renderer needs to draw this column of `ep`.
    pub fn frame<'a>(
        &'a self,
        ep: &'a ClientEndpoint,
        input: Vec2,
        push_zones: bool,
        follow: Option<(Vec2, f32)>,
        mesh_offsets: Option<&'a [(f32, f32)]>,
    ) -> ColumnFrame<'a> {
        ColumnFrame {
            frame: Frame {
                endpoint: ep,
                input,
                push_zones,
                follow,
            },
            cmc: CmcDraw {
                // Every correction held (the main column narrows it to
                // UE's p.NetShowCorrections / p.NetCorrectionLifetime).
                server_corrections: usize::MAX,
                correction: self.shown_group(),
                mesh_offsets,
            },
            rollback: RollbackDraw {
                smoothing: &self.smoothing,
                shown: self.rebases.shown().map(|(e, _, _)| e),
            },
        }
    }
}

/// What one column of panels draws: the frame, and each model's part.
pub struct ColumnFrame<'a> {
    /// What both models draw from.
    pub frame: Frame<'a>,
    /// The CMC model's part.
    pub cmc: CmcDraw<'a>,
    /// The rollback model's part.
    pub rollback: RollbackDraw<'a>,
}

impl ColumnFrame<'_> {
    /// The same frame drawing only the `server_corrections` newest of the
    /// server's corrections, and the Replayed panel's correction only when
    /// `show` (UE `p.NetShowCorrections` / `p.NetCorrectionLifetime`).
    #[must_use]
    pub fn with_corrections(self, server_corrections: usize, show: bool) -> Self {
        ColumnFrame {
            cmc: CmcDraw {
                server_corrections,
                correction: self.cmc.correction.filter(|_| show),
                ..self.cmc
            },
            ..self
        }
    }

    /// Draws the column in the model its endpoint runs.
    pub fn draw(&self, layout: &Layout) {
        match self.frame.endpoint.rollback() {
            Some(r) => rollback_panels::draw(&self.frame, r, &self.rollback, layout),
            None => cmc_panels::draw(&self.frame, &self.cmc, layout),
        }
    }
}
