//! Smoothing of the *drawn* position (UE's mesh offset, reference `000_…`
//! §7.2): the collision position snaps to the authoritative value at once;
//! the mesh keeps an offset from it that decays to zero. The fourth mode,
//! interpolation in the past, draws from a buffer of updates instead
//! ([`crate::foundation::interpolation`]); the fifth, extrapolation, draws
//! the others' dead reckoning undisguised ([`crate::cmc::proxy`]).

use crate::foundation::math::Vec2;
use serde::{Deserialize, Serialize};

/// How the drawn position catches up after a snap (UE
/// `ENetworkSmoothingMode`, `000_…` §7.2), plus interpolation in the past.
///
/// Saved scenarios encode the variant's index: new variants go at the end.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum SmoothingMode {
    /// No smoothing: the mesh jumps with the collision position.
    Disabled,
    /// The offset shrinks at a constant rate and is gone after
    /// [`SMOOTH_LOCATION_TIME`].
    Linear,
    /// The offset decays exponentially: `offset *= 1 − dt / T` each frame
    /// (`SmoothClientPosition_Interpolate`, quoted in `000_…` §7.2). UE's
    /// default.
    #[default]
    Exponential,
    /// Interpolation in the past (Source's `cl_interp`, Unity's
    /// interpolation ticks): a simulated proxy is drawn where the server
    /// had it a render delay ago, between two updates it already holds, so
    /// it never guesses — and it shows everyone that much later, and every
    /// shot at them must be rewound that much further
    /// ([`crate::foundation::interpolation`]). A character drawn without such a
    /// buffer — the local player's own corrections, the one-bot page's
    /// proxy (its updates carry no server time) — smooths as
    /// [`SmoothingMode::Exponential`].
    Interpolation,
    /// Extrapolation (dead reckoning): a simulated proxy is drawn where its
    /// newest update's position plus velocity × the time since it arrived
    /// puts it, at most [`crate::cmc::proxy::MAX_EXTRAPOLATION`] (0.25 s,
    /// Source's `cl_extrapolate_amount` default) past it, with no mesh
    /// offset: when it turns or stops the body runs on — the overshoot —
    /// and the next update **snaps** it back, so both are seen in full
    /// ([`crate::cmc::proxy::SimulatedProxy::extrapolation_error`] measures
    /// the snap). Every mesh-offset mode extrapolates the collision
    /// position the same way (UE simulates its proxies between updates,
    /// `000_…` §7); Disabled snaps the same, and this mode differs from it
    /// only in the local player, whose own corrections smooth as
    /// [`SmoothingMode::Exponential`].
    Extrapolation,
}

impl SmoothingMode {
    /// Parses the page's `#smoothing` values `disabled`, `linear`,
    /// `exponential`, `interpolation`, `extrapolation` (case-insensitive).
    pub fn parse(s: &str) -> Option<SmoothingMode> {
        match s.to_ascii_lowercase().as_str() {
            "disabled" => Some(SmoothingMode::Disabled),
            "linear" => Some(SmoothingMode::Linear),
            "exponential" => Some(SmoothingMode::Exponential),
            "interpolation" => Some(SmoothingMode::Interpolation),
            "extrapolation" => Some(SmoothingMode::Extrapolation),
            _ => None,
        }
    }

    /// The lower-case name used in the page and in scenarios.
    pub fn name(self) -> &'static str {
        match self {
            SmoothingMode::Disabled => "disabled",
            SmoothingMode::Linear => "linear",
            SmoothingMode::Exponential => "exponential",
            SmoothingMode::Interpolation => "interpolation",
            SmoothingMode::Extrapolation => "extrapolation",
        }
    }

    /// The mode a simulated proxy's mesh offset runs in: Extrapolation
    /// draws the dead reckoning itself, so it keeps no offset (Disabled);
    /// every other mode is its own.
    pub fn proxy_mesh(self) -> SmoothingMode {
        match self {
            SmoothingMode::Extrapolation => SmoothingMode::Disabled,
            m => m,
        }
    }
}

/// Time the offset takes to vanish, s: UE
/// `NetworkSimulatedSmoothLocationTime` default 0.100.
pub const SMOOTH_LOCATION_TIME: f32 = 0.100;

/// A snap longer than this (cm) is a teleport and is not smoothed: UE
/// `NetworkNoSmoothUpdateDistance` default 384.
pub const NO_SMOOTH_UPDATE_DISTANCE: f32 = 384.0;

/// The farthest the mesh may lag behind the collision position, cm: a
/// longer offset (but no teleport) is shortened to this. UE
/// `NetworkMaxSmoothUpdateDistance` default 256 ("maximum distance
/// character is allowed to lag behind server location when interpolating
/// between updates"). UE caps the step it adds to the offset; capping the
/// offset is the same once the previous offset has decayed.
pub const MAX_SMOOTH_UPDATE_DISTANCE: f32 = 256.0;

/// The smallest change of the mesh offset that starts a new correction,
/// cm: the wire's resolution (a replicated position is whole 1/100 cm,
/// [`crate::cmc::wire::NetPosition`]). An update that moves the collision
/// position less than this — a stopped proxy's, or one the extrapolation
/// foresaw — corrects nothing.
pub const MIN_CORRECTION: f32 = 0.01;

/// The mesh offset of one character.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct MeshSmoother {
    offset: Vec2,
    initial: Vec2,
    elapsed: f32,
}

impl MeshSmoother {
    /// The collision position jumped from `drawn_before` (where the mesh
    /// was drawn) to `new_position`: keep the mesh where it was, as an
    /// offset of at most [`MAX_SMOOTH_UPDATE_DISTANCE`], unless `mode` is
    /// Disabled or the jump is a teleport (over
    /// [`NO_SMOOTH_UPDATE_DISTANCE`]).
    ///
    /// Linear's ramp restarts only when a correction starts: a jump under
    /// [`MIN_CORRECTION`] leaves the running ramp alone, so an offset is
    /// gone [`SMOOTH_LOCATION_TIME`] after the correction that made it
    /// however many updates follow (restarting it on every update halved
    /// it per update instead: 0.1 s became 0.3–0.6 s at 20 Hz).
    pub fn on_snap(&mut self, drawn_before: Vec2, new_position: Vec2, mode: SmoothingMode) {
        let offset = drawn_before - new_position;
        let teleport =
            offset.length_squared() > NO_SMOOTH_UPDATE_DISTANCE * NO_SMOOTH_UPDATE_DISTANCE;
        let offset = if mode == SmoothingMode::Disabled || teleport {
            Vec2::ZERO
        } else {
            offset.clamped_to_max_size(MAX_SMOOTH_UPDATE_DISTANCE)
        };
        let corrects = (offset - self.offset).length_squared() >= MIN_CORRECTION * MIN_CORRECTION;
        if mode == SmoothingMode::Linear && !corrects {
            return;
        }
        self.offset = offset;
        self.initial = offset;
        self.elapsed = 0.0;
    }

    /// Decays the offset by `dt` seconds of render time.
    pub fn advance(&mut self, dt: f32, mode: SmoothingMode) {
        if dt.is_nan() || dt <= 0.0 {
            return;
        }
        self.elapsed += dt;
        self.offset = match mode {
            SmoothingMode::Disabled => Vec2::ZERO,
            SmoothingMode::Linear => {
                self.initial * (1.0 - self.elapsed / SMOOTH_LOCATION_TIME).max(0.0)
            }
            SmoothingMode::Exponential
            | SmoothingMode::Interpolation
            | SmoothingMode::Extrapolation => {
                self.offset * (1.0 - (dt / SMOOTH_LOCATION_TIME).min(1.0))
            }
        };
        if self.offset.length_squared() < 1e-4 {
            self.offset = Vec2::ZERO;
        }
    }

    /// Current offset of the drawn position from the collision position, cm.
    pub fn offset(&self) -> Vec2 {
        self.offset
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponential_halves_after_half_the_smooth_time() {
        let mut s = MeshSmoother::default();
        s.on_snap(
            Vec2::new(100.0, 0.0),
            Vec2::ZERO,
            SmoothingMode::Exponential,
        );
        s.advance(0.05, SmoothingMode::Exponential);
        assert_eq!(s.offset(), Vec2::new(50.0, 0.0));
    }

    #[test]
    fn linear_is_gone_after_100_ms() {
        let mut s = MeshSmoother::default();
        s.on_snap(Vec2::new(0.0, 80.0), Vec2::ZERO, SmoothingMode::Linear);
        s.advance(0.025, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::new(0.0, 60.0));
        s.advance(0.075, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::ZERO);
    }

    #[test]
    fn linear_restarts_its_ramp_only_when_a_correction_starts() {
        let mut s = MeshSmoother::default();
        s.on_snap(Vec2::new(40.0, 0.0), Vec2::ZERO, SmoothingMode::Linear);
        s.advance(0.05, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::new(20.0, 0.0));
        // An update that leaves the collision position where it is (a
        // stopped proxy): the ramp runs on and ends 0.1 s after it began.
        s.on_snap(Vec2::new(20.0, 0.0), Vec2::ZERO, SmoothingMode::Linear);
        s.advance(0.025, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::new(10.0, 0.0));
        s.advance(0.025, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::ZERO);
        // A new correction starts a new ramp from the offset drawn.
        s.on_snap(Vec2::new(0.0, 8.0), Vec2::ZERO, SmoothingMode::Linear);
        s.advance(0.05, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::new(0.0, 4.0));
    }

    #[test]
    fn disabled_and_teleports_snap_and_long_offsets_are_cut_to_256_cm() {
        let mut s = MeshSmoother::default();
        s.on_snap(Vec2::new(50.0, 0.0), Vec2::ZERO, SmoothingMode::Disabled);
        assert_eq!(s.offset(), Vec2::ZERO);
        s.on_snap(
            Vec2::new(385.0, 0.0),
            Vec2::ZERO,
            SmoothingMode::Exponential,
        );
        assert_eq!(s.offset(), Vec2::ZERO);
        s.on_snap(
            Vec2::new(383.0, 0.0),
            Vec2::ZERO,
            SmoothingMode::Exponential,
        );
        assert_eq!(s.offset(), Vec2::new(256.0, 0.0));
        s.on_snap(Vec2::new(0.0, 255.0), Vec2::ZERO, SmoothingMode::Linear);
        assert_eq!(s.offset(), Vec2::new(0.0, 255.0));
    }

    #[test]
    fn parse_page_values() {
        assert_eq!(SmoothingMode::parse("Linear"), Some(SmoothingMode::Linear));
        assert_eq!(SmoothingMode::parse("bogus"), None);
        assert_eq!(
            SmoothingMode::parse("Interpolation").map(SmoothingMode::name),
            Some("interpolation")
        );
        assert_eq!(SmoothingMode::default().name(), "exponential");
        assert_eq!(
            SmoothingMode::parse("extrapolation"),
            Some(SmoothingMode::Extrapolation)
        );
        assert_eq!(SmoothingMode::Extrapolation.name(), "extrapolation");
    }
}
