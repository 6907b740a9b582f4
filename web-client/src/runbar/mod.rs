//! The run bar and sharing: the transport every run obeys (❚❚ / ▶,
//! Step ›, speed), Record / Save / Copy link / ⟲ Restart, the scenario
//! card and its read-outs, a scenario playing back at its own pace, and
//! the relay's scenario API (`/s/{id}` and `#s=` links, the clipboard).
//! The transitions they cause (recording, playing, taking over) are the
//! app's state machine (`crate::app`).
//!
//! | module | holds |
//! |---|---|
//! | `fixed_step` | the fixed 1/60 s simulation step option: whole steps per rendered frame (pure) |
//! | `playback` | the run's state, pause / step / speed, pacing a recording against the page's frames (pure) |
//! | `recorder` | what was recorded or opened, and what Save does with it (pure) |
//! | `scenario_panel` | the run bar's and the scenario card's HTML, clicks and read-outs |
//! | `share` | the scenario API's requests, the page's share links, the clipboard |

pub mod fixed_step;
pub mod playback;
pub mod recorder;
pub mod scenario_panel;
pub mod share;
