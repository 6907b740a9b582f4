//! The packet timeline under the pointer: what a point hits ([`hit`]) and
//! what a press, drag, release or wheel turn does ([`Gesture`]). Pure:
//! tested natively; the canvas code feeds it pointer events in CSS px.
//!
//! | gesture | does |
//! |---|---|
//! | press on the ruler or the playhead, drag | moves the playhead (seek) |
//! | click a correction mark | opens its story |
//! | click a packet line | selects it (its details under the lanes) |
//! | click elsewhere in the lanes | moves the playhead there |
//! | drag in the lanes | pans |
//! | wheel | zooms around the pointer; shift + wheel pans |

use super::lanes::{Segment, Window};

/// A correction mark hits within this radius, CSS px.
pub const MARK_RADIUS: f64 = 7.0;
/// A packet line hits within this distance, CSS px.
pub const LINE_SLOP: f64 = 4.0;
/// The playhead hits within this distance, CSS px.
pub const PLAYHEAD_SLOP: f64 = 5.0;
/// A press that moves less than this is a click, CSS px.
pub const CLICK_SLOP: f64 = 3.0;
/// Zoom per wheel notch (100 units of `deltaY`).
pub const WHEEL_ZOOM: f64 = 1.25;

/// A correction drawn on a branch's client row.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Mark {
    /// Centre, CSS px.
    pub at: (f64, f64),
    /// The branch (0: the run, 1: the fork).
    pub branch: usize,
    /// The correction's index in its branch's inspection.
    pub index: usize,
}

/// What a point is on.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    /// A correction mark.
    Correction {
        /// The branch.
        branch: usize,
        /// Its index.
        index: usize,
    },
    /// The playhead (or the ruler, where a press moves it).
    Playhead,
    /// A packet line of branch `branch`.
    Packet {
        /// The branch.
        branch: usize,
        /// The packet's record index.
        record: usize,
    },
    /// Empty lane area.
    Lane,
}

/// What `p` hits: marks first, then the playhead and the ruler (above
/// `ruler_bottom`), then the nearest packet line within [`LINE_SLOP`].
/// `segments` pairs each branch with its segments.
pub fn hit(
    p: (f64, f64),
    marks: &[Mark],
    playhead_x: Option<f64>,
    ruler_bottom: f64,
    segments: &[(usize, &[Segment])],
) -> Target {
    if let Some(m) = marks
        .iter()
        .filter(|m| distance(p, m.at) <= MARK_RADIUS)
        .min_by(|a, b| distance(p, a.at).total_cmp(&distance(p, b.at)))
    {
        return Target::Correction {
            branch: m.branch,
            index: m.index,
        };
    }
    if p.1 <= ruler_bottom || playhead_x.is_some_and(|x| (p.0 - x).abs() <= PLAYHEAD_SLOP) {
        return Target::Playhead;
    }
    segments
        .iter()
        .flat_map(|(branch, s)| s.iter().map(move |s| (*branch, s)))
        .map(|(branch, s)| (branch, s.record, to_segment(p, s.from, s.to)))
        .filter(|(_, _, d)| *d <= LINE_SLOP)
        .min_by(|a, b| a.2.total_cmp(&b.2))
        .map_or(Target::Lane, |(branch, record, _)| Target::Packet {
            branch,
            record,
        })
}

/// What a gesture asks the inspector to do.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Action {
    /// Move the playhead to this run time, µs.
    Seek(u64),
    /// Open correction `index` of `branch`.
    Open {
        /// The branch.
        branch: usize,
        /// Its index.
        index: usize,
    },
    /// Select a packet of `branch`.
    Select {
        /// The branch.
        branch: usize,
        /// Its record index.
        record: usize,
    },
    /// Pan by this many CSS px (positive: later).
    Pan(f64),
    /// Zoom by `factor` around `x`.
    Zoom {
        /// The pointer's x, CSS px.
        x: f64,
        /// < 1 zooms in.
        factor: f64,
    },
    /// Move the playhead this many frames (negative: back).
    Step(i64),
    /// Show the whole run.
    Fit,
}

/// What a key does on the focused timeline: ← → one frame (with shift
/// ten), Home / End the run's ends, + − zoom around the middle, 0 the
/// whole run.
pub fn key(key: &str, shift: bool, window: &Window, extent: (u64, u64)) -> Option<Action> {
    let frames = if shift { 10 } else { 1 };
    let middle = (window.left + window.right) / 2.0;
    Some(match key {
        "ArrowLeft" => Action::Step(-frames),
        "ArrowRight" => Action::Step(frames),
        "Home" => Action::Seek(extent.0),
        "End" => Action::Seek(extent.1),
        "+" | "=" => Action::Zoom {
            x: middle,
            factor: 1.0 / WHEEL_ZOOM,
        },
        "-" => Action::Zoom {
            x: middle,
            factor: WHEEL_ZOOM,
        },
        "0" => Action::Fit,
        _ => return None,
    })
}

/// A press in progress.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Press {
    /// Dragging the playhead.
    Playhead,
    /// Pressed on `target` at `start`; `last_x` for panning, `moved` once
    /// past [`CLICK_SLOP`].
    Lane {
        target: Target,
        start: (f64, f64),
        last_x: f64,
        moved: bool,
    },
}

/// Presses, drags and releases on the timeline.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Gesture {
    press: Option<Press>,
    /// A press on the empty lanes moves the playhead and a drag there
    /// seeks, as on the ruler (a room playback's lanes, which have no
    /// packets to pan along); off: a drag there pans.
    pub seek_in_lanes: bool,
}

impl Gesture {
    /// `true` while a press is held (the canvas captures the pointer).
    pub fn active(&self) -> bool {
        self.press.is_some()
    }

    /// A press at `p` on `target`.
    pub fn down(&mut self, p: (f64, f64), target: Target, window: &Window) -> Option<Action> {
        if target == Target::Playhead || (self.seek_in_lanes && target == Target::Lane) {
            self.press = Some(Press::Playhead);
            return Some(Action::Seek(window.t_of(p.0)));
        }
        self.press = Some(Press::Lane {
            target,
            start: p,
            last_x: p.0,
            moved: false,
        });
        None
    }

    /// The pointer moved to `p` while pressed.
    pub fn drag(&mut self, p: (f64, f64), window: &Window) -> Option<Action> {
        match self.press.as_mut()? {
            Press::Playhead => Some(Action::Seek(window.t_of(p.0))),
            Press::Lane {
                start,
                last_x,
                moved,
                ..
            } => {
                *moved |= distance(p, *start) > CLICK_SLOP;
                if !*moved {
                    return None;
                }
                // Dragging the content right shows earlier times.
                let dx = *last_x - p.0;
                *last_x = p.0;
                Some(Action::Pan(dx))
            }
        }
    }

    /// The press ended at `p`: a click acts on what it was pressed on.
    pub fn up(&mut self, p: (f64, f64), window: &Window) -> Option<Action> {
        match self.press.take()? {
            Press::Playhead => None,
            Press::Lane { moved: true, .. } => None,
            Press::Lane { target, .. } => Some(match target {
                Target::Correction { branch, index } => Action::Open { branch, index },
                Target::Packet { branch, record } => Action::Select { branch, record },
                Target::Playhead | Target::Lane => Action::Seek(window.t_of(p.0)),
            }),
        }
    }

    /// A wheel turn of `delta_y` (and `delta_x`) at `x`: zoom, or pan
    /// with shift or a sideways wheel.
    pub fn wheel(x: f64, delta_x: f64, delta_y: f64, shift: bool) -> Action {
        if shift || delta_x.abs() > delta_y.abs() {
            let d = if delta_x.abs() > delta_y.abs() {
                delta_x
            } else {
                delta_y
            };
            Action::Pan(d)
        } else {
            Action::Zoom {
                x,
                factor: WHEEL_ZOOM.powf(delta_y / 100.0),
            }
        }
    }
}

fn distance(a: (f64, f64), b: (f64, f64)) -> f64 {
    ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt()
}

/// Distance from `p` to the segment `a`–`b`.
fn to_segment(p: (f64, f64), a: (f64, f64), b: (f64, f64)) -> f64 {
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len2 = dx * dx + dy * dy;
    if len2 == 0.0 {
        return distance(p, a);
    }
    let t = (((p.0 - a.0) * dx + (p.1 - a.1) * dy) / len2).clamp(0.0, 1.0);
    distance(p, (a.0 + t * dx, a.1 + t * dy))
}

#[cfg(test)]
mod tests {
    use super::super::lanes::{End, Style};
    use super::*;

    fn line(record: usize, from: (f64, f64), to: (f64, f64)) -> Segment {
        Segment {
            record,
            from,
            to,
            style: Style::Move,
            end: End::Arrived,
            copy: false,
            overtook: false,
            resent: false,
            held: false,
        }
    }

    fn window() -> Window {
        Window::new(0, 1_000_000, 100.0, 1100.0)
    }

    #[test]
    fn marks_win_over_lines_and_the_nearest_line_wins() {
        let lines = [
            line(0, (200.0, 30.0), (300.0, 80.0)),
            line(1, (206.0, 30.0), (306.0, 80.0)),
        ];
        let marks = [Mark {
            at: (200.0, 30.0),
            branch: 0,
            index: 4,
        }];
        let segs: [(usize, &[Segment]); 1] = [(0, &lines)];
        assert_eq!(
            hit((202.0, 31.0), &marks, None, 20.0, &segs),
            Target::Correction {
                branch: 0,
                index: 4
            }
        );
        // Halfway along: (250, 55) is on #0; (254, 55) nearer #1.
        assert_eq!(
            hit((250.0, 55.0), &[], None, 20.0, &segs),
            Target::Packet {
                branch: 0,
                record: 0
            }
        );
        assert_eq!(
            hit((254.0, 55.0), &[], None, 20.0, &segs),
            Target::Packet {
                branch: 0,
                record: 1
            }
        );
        assert_eq!(hit((600.0, 55.0), &[], None, 20.0, &segs), Target::Lane);
        assert_eq!(hit((600.0, 10.0), &[], None, 20.0, &segs), Target::Playhead);
        assert_eq!(
            hit((603.0, 70.0), &[], Some(600.0), 20.0, &segs),
            Target::Playhead
        );
    }

    #[test]
    fn dragging_the_playhead_seeks_all_the_way() {
        let w = window();
        let mut g = Gesture::default();
        assert_eq!(
            g.down((350.0, 10.0), Target::Playhead, &w),
            Some(Action::Seek(250_000))
        );
        assert!(g.active());
        assert_eq!(g.drag((150.0, 40.0), &w), Some(Action::Seek(50_000)));
        assert_eq!(g.up((150.0, 40.0), &w), None);
        assert!(!g.active());
    }

    #[test]
    fn a_click_opens_selects_or_seeks_and_a_drag_pans() {
        let w = window();
        let mut g = Gesture::default();
        let mark = Target::Correction {
            branch: 1,
            index: 2,
        };
        assert_eq!(g.down((400.0, 50.0), mark, &w), None);
        assert_eq!(g.drag((401.0, 51.0), &w), None, "within the click slop");
        assert_eq!(
            g.up((401.0, 51.0), &w),
            Some(Action::Open {
                branch: 1,
                index: 2
            })
        );
        g.down((400.0, 50.0), Target::Lane, &w);
        assert_eq!(g.up((400.0, 50.0), &w), Some(Action::Seek(300_000)));
        g.down((400.0, 50.0), Target::Lane, &w);
        assert_eq!(g.drag((390.0, 50.0), &w), Some(Action::Pan(10.0)));
        assert_eq!(g.drag((380.0, 50.0), &w), Some(Action::Pan(10.0)));
        assert_eq!(g.up((380.0, 50.0), &w), None, "a drag is not a click");
    }

    #[test]
    fn keys_step_frames_jump_to_the_ends_and_zoom() {
        let w = window();
        let extent = (0, 9_000_000);
        assert_eq!(key("ArrowLeft", false, &w, extent), Some(Action::Step(-1)));
        assert_eq!(key("ArrowRight", true, &w, extent), Some(Action::Step(10)));
        assert_eq!(key("End", false, &w, extent), Some(Action::Seek(9_000_000)));
        assert_eq!(
            key("+", false, &w, extent),
            Some(Action::Zoom {
                x: 600.0,
                factor: 0.8
            })
        );
        assert_eq!(key("0", false, &w, extent), Some(Action::Fit));
        assert_eq!(key("x", false, &w, extent), None);
    }

    #[test]
    fn the_wheel_zooms_and_shift_or_sideways_pans() {
        assert_eq!(
            Gesture::wheel(500.0, 0.0, -100.0, false),
            Action::Zoom {
                x: 500.0,
                factor: 0.8
            }
        );
        assert_eq!(Gesture::wheel(500.0, 0.0, 40.0, true), Action::Pan(40.0));
        assert_eq!(Gesture::wheel(500.0, -30.0, 5.0, false), Action::Pan(-30.0));
    }

    #[test]
    fn in_seeking_lanes_a_press_and_a_drag_on_the_lanes_move_the_playhead() {
        let w = window();
        let mut g = Gesture {
            seek_in_lanes: true,
            ..Gesture::default()
        };
        // 1000 px for 1 s: x 350 is 250 ms, x 600 is 500 ms.
        assert_eq!(
            g.down((350.0, 60.0), Target::Lane, &w),
            Some(Action::Seek(250_000))
        );
        assert_eq!(g.drag((600.0, 62.0), &w), Some(Action::Seek(500_000)));
        assert_eq!(g.up((600.0, 62.0), &w), None);
        // A mark still opens.
        let mark = Target::Correction {
            branch: 0,
            index: 3,
        };
        assert_eq!(g.down((600.0, 30.0), mark, &w), None);
        assert_eq!(
            g.up((600.0, 30.0), &w),
            Some(Action::Open {
                branch: 0,
                index: 3
            })
        );
        // Without it a drag on the lanes pans.
        let mut g = Gesture::default();
        assert_eq!(g.down((350.0, 60.0), Target::Lane, &w), None);
        assert_eq!(g.drag((360.0, 60.0), &w), Some(Action::Pan(-10.0)));
    }
}
