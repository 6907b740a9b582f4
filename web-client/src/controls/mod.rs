//! The control column's shared parts and the link: a page control bound
//! to its entry in `sim::controls` (range, step, default and the value in
//! force), the Link section (RTT, loss, jitter, presets, the
//! per-direction table), the Link card (the configured link beside the
//! measured one) and the switch that shows one model's sections, rows and
//! words. Each model's own sections are its folder's (`crate::cmc::controls`,
//! `crate::rollback::controls`), the room's `crate::room::controls`.
//!
//! | module | holds |
//! |---|---|
//! | `sliders` | [`sliders::Slider`] and [`sliders::Toggle`]: a control bound to `sim::controls` |
//! | `link` | the Link section and "Advanced network": [`link::NetControls`] |
//! | `link_card` | the Link card: configured vs measured, with the samples behind each figure |
//! | `frame_health` | the page's frame interval, its worst of 10 s, and the warning when it crossed UE's limits |
//! | `opening` | what a bare link opens on: the bad link, its one spike, the strip that gives the clean link back |
//! | `model_view` | which elements, sections and words the page shows for the model running |

pub mod frame_health;
pub mod link;
pub mod link_card;
pub mod model_view;
pub mod opening;
pub mod sliders;
