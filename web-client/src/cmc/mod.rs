//! The CMC model's part of the page (UE's CharacterMovementComponent,
//! reference `000_…`): its three panels' drawing, the words around them,
//! the Replayed panel's memory of corrections, its Metrics card, and its
//! controls (the server's rules, the client's, smoothing).
//!
//! | module | holds |
//! |---|---|
//! | `panels` | Predicted, Authoritative and Replayed contents: SavedMoves, the server's ghost, corrections, the mesh-offset inset |
//! | `captions` | each panel's line and footer: what is counted and on which side (pure) |
//! | `corrections` | the Replayed panel's correction bursts and ◀ ▶ through them (pure) |
//! | `readouts` | the Metrics card: the CMC counters and the numbers both models share |
//! | `controls` | the Server rules and Client sections and the smoothing mode, bound to `sim::controls` |

pub mod captions;
pub mod controls;
pub mod corrections;
pub mod panels;
pub mod readouts;
