//! The inspector's page half (issue 14): the packet timeline, scrubbing,
//! the correction inspector, what-if forks, the latency budget and UE's
//! console line. The data model is `sim::inspect`; this module keeps the
//! inspection in step with the run, shows it and takes the clicks, and
//! `crate::app::inspect` wires it into the loop (pausing, the playhead
//! moving a scenario's run, the console's settings). On the relay and in
//! a room the lanes are the relay's packet trace (issue 23); a paused
//! relay run is scrubbed through the page's own end, played again from
//! its tape (`relay_scrub`).
//!
//! | module | holds |
//! |---|---|
//! | `mode` | what the timeline and the panels show for the run's state (pure) |
//! | `playhead` | the inspection built and kept in step with the run; seeks, steps, a story opened, a packet focused |
//! | `view` | what is drawn and written each frame: the timeline's scene, the card, the playhead, the latency budget |
//! | `fork` | what-if forks: made, compared, put in words, saved |
//! | `lanes` | the timeline's geometry: window (zoom, pan), rows, packet segments, bands (pure) |
//! | `gesture` | hit tests and what a press, drag, wheel or key does (pure) |
//! | `scrub` | the playhead over the run and its fork, seeks both ways (pure over `sim`) |
//! | `relay_scrub` | the playhead over a paused relay run: the page's end from its tape (pure over `sim`) |
//! | `story_view` | the list rows, a story laid out, a packet in words (pure) |
//! | `console_text` | what a console line answers (pure) |
//! | `lifetime` | which corrections `p.NetShowCorrections` / `p.NetCorrectionLifetime` leave drawn (pure) |
//! | `budget` | the latency budget card |
//! | `lane_canvas`, `pointer` | the timeline's canvas, its window and its events |
//! | `lane_paint` | the scene a draw is given and the strokes |
//! | `panel` | the corrections list, the story, the what-ifs and the fork's result |
//! | `console_line` | the `#console` input and its output |

pub mod budget;
pub mod console_line;
pub mod console_text;
#[cfg(test)]
mod fixtures;
pub mod fork;
pub mod gesture;
pub mod lane_canvas;
pub mod lane_paint;
pub mod lanes;
pub mod lifetime;
pub mod mode;
pub mod panel;
pub mod playhead;
pub mod pointer;
pub mod relay_scrub;
pub mod scrub;
pub mod story_view;
pub mod view;

use budget::BudgetCard;
use console_line::ConsoleLine;
use lane_canvas::LaneCanvas;
use panel::{ForkView, InspectorPanel};
use relay_scrub::RelayScrub;
use scrub::{Comparison, Scrub};
use sim::inspect::Story;
use sim::SimTime;
use std::cell::RefCell;
use std::rc::Rc;
use story_view::StoryView;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use web_sys::{Document, KeyboardEvent};

/// The open story.
pub struct Open {
    /// Its branch (0: the run, 1: the fork).
    pub branch: usize,
    /// Its index among the branch's corrections.
    pub index: usize,
    /// The story.
    pub story: Story,
    /// The story laid out.
    pub view: StoryView,
}

/// What the scrub was built from: a changed run needs a new inspection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltFrom {
    /// The scenario's seed.
    pub seed: u64,
    /// Its frames.
    pub frames: usize,
    /// Its changes.
    pub changes: usize,
}

/// How long the inspector's work took, ms of page time.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Costs {
    /// Building the inspection (two playbacks of the run).
    pub inspect_ms: Option<f64>,
    /// The last seek or step.
    pub seek_ms: Option<f64>,
    /// Building the fork's inspection.
    pub fork_ms: Option<f64>,
}

/// The inspector's parts and state.
pub struct Inspector {
    /// The timeline canvas.
    pub lanes: LaneCanvas,
    /// The corrections list and the story.
    pub panel: InspectorPanel,
    /// The console line.
    pub console: ConsoleLine,
    /// The latency budget card.
    pub budget: BudgetCard,
    /// The playhead over the inspected run (paused, at an end, or a
    /// scenario playing back).
    pub scrub: Option<Scrub>,
    /// What `scrub` was built from.
    pub built: Option<BuiltFrom>,
    /// The playhead over a paused relay run.
    pub relay: Option<RelayScrub>,
    /// A room event's story (a shot, a proxy jump), when one is open.
    pub room_story: Option<StoryView>,
    /// Which of the room's listed events is open.
    pub room_open: Option<usize>,
    /// The panels show the scrub's run (set each frame by the loop).
    pub inspecting: bool,
    /// The open story.
    pub open: Option<Open>,
    /// Scroll the story into view once it is written (it just opened).
    pub reveal: bool,
    /// The fork against the run, once made.
    pub comparison: Option<Comparison>,
    /// The fork's result as shown.
    pub fork_view: Option<ForkView>,
    /// The selected packet (branch, record).
    pub selected: Option<(usize, usize)>,
    /// The fork's save reply.
    pub save_box: crate::runbar::share::Mailbox<crate::runbar::share::Reply>,
    /// The fork being saved.
    pub saving: Option<sim::Scenario>,
    /// UE `p.NetShowCorrections`.
    pub show_corrections: bool,
    /// UE `p.NetCorrectionLifetime`, s (`None`: the panels' own fading).
    pub correction_lifetime_s: Option<f32>,
    /// When the shown endpoint's corrections were first seen.
    pub correction_ages: lifetime::CorrectionAges,
    /// The costs shown under the timeline.
    pub costs: Costs,
    /// Next budget refresh, page clock.
    pub next_budget: SimTime,
    steps: Rc<RefCell<i64>>,
}

impl Inspector {
    /// Finds its parts in `doc`; `,` and `.` anywhere but in a text field
    /// step the playhead one frame.
    pub fn new(doc: &Document) -> Inspector {
        let steps: Rc<RefCell<i64>> = Rc::default();
        let s = steps.clone();
        let cb = Closure::<dyn Fn(KeyboardEvent)>::new(move |e: KeyboardEvent| {
            let typing = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
                .is_some_and(|t| matches!(t.tag_name().as_str(), "INPUT" | "TEXTAREA" | "SELECT"));
            let delta = match e.key().as_str() {
                "," => -1,
                "." => 1,
                _ => return,
            };
            if !typing && !e.ctrl_key() && !e.meta_key() && !e.alt_key() {
                *s.borrow_mut() += delta;
            }
        });
        let _ = doc.add_event_listener_with_callback("keydown", cb.as_ref().unchecked_ref());
        cb.forget();
        Inspector {
            lanes: LaneCanvas::new(doc),
            panel: InspectorPanel::new(doc),
            console: ConsoleLine::new(doc),
            budget: BudgetCard::new(doc),
            scrub: None,
            built: None,
            relay: None,
            room_story: None,
            room_open: None,
            inspecting: false,
            open: None,
            reveal: false,
            comparison: None,
            fork_view: None,
            selected: None,
            save_box: crate::runbar::share::Mailbox::default(),
            saving: None,
            show_corrections: true,
            correction_lifetime_s: None,
            correction_ages: lifetime::CorrectionAges::default(),
            costs: Costs::default(),
            next_budget: SimTime::ZERO,
            steps,
        }
    }

    /// Frames stepped with `,` / `.` since the last call.
    pub fn take_key_steps(&self) -> i64 {
        self.steps.replace(0)
    }

    /// Forgets the inspected run (a new one is coming).
    pub fn forget(&mut self) {
        self.scrub = None;
        self.built = None;
        self.relay = None;
        self.room_story = None;
        self.room_open = None;
        self.open = None;
        self.comparison = None;
        self.fork_view = None;
        self.selected = None;
    }

    /// The run the panels show while inspecting.
    pub fn shown_run(&self) -> Option<&sim::ScenarioRun> {
        self.scrub
            .as_ref()
            .filter(|_| self.inspecting)
            .map(Scrub::run)
    }

    /// The client end the panels show while inspecting: the run's, or a
    /// relay run's played again from its tape.
    pub fn shown_endpoint(&self) -> Option<&sim::ClientEndpoint> {
        let relay = self.relay.as_ref().map(|r| r.at().endpoint());
        self.shown_run()
            .map(sim::ScenarioRun::endpoint)
            .or(relay.filter(|_| self.inspecting))
    }

    /// The read-out at the playhead while inspecting.
    pub fn shown_metrics(&mut self) -> Option<sim::Metrics> {
        if !self.inspecting {
            return None;
        }
        if let Some(s) = &mut self.scrub {
            return Some(s.run_mut().metrics());
        }
        let at = self.relay.as_mut()?.at_mut();
        let now = at.now();
        Some(at.endpoint_mut().metrics(now))
    }
}

/// Page-clock milliseconds `f` took, and its result.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, f64) {
    let start = crate::clock::now();
    let out = f();
    (out, crate::clock::now().secs_since(start) * 1000.0)
}
