//! A recorded two-player CMC room for the room-recording tests.

use super::FRAME;
use sim::endpoints::room::reports::shots::strafer;
use sim::endpoints::room::{RoomEndpoint, RoomSession};
use sim::room::weapon::WeaponConfig;
use sim::room::{PlayerId, RoomConfig};
use sim::{NetSettings, SmoothingMode, Vec2};

/// A recorded room of `seconds` s: a shooter standing at the spawn on
/// `shooter_link`, drawing the others by `smoothing`, fires at a player
/// strafing on `target_link` every 300 ms from 4 s on, aiming at the
/// target as drawn. Returns the session (recording on from the start)
/// and both ids.
pub fn duel(
    shooter_link: NetSettings,
    target_link: NetSettings,
    seconds: u32,
    smoothing: SmoothingMode,
) -> (RoomSession, PlayerId, PlayerId) {
    let config = RoomConfig {
        weapon: WeaponConfig {
            magazine: 200,
            ..WeaponConfig::default()
        },
        ..RoomConfig::default()
    };
    let mut s = RoomSession::new(config, 23).unwrap();
    s.host.record(1_000_000).unwrap();
    let shooter = s.join(shooter_link).unwrap();
    let target = s.join(target_link).unwrap();
    if smoothing != SmoothingMode::default() {
        s.act(shooter, |e, _| e.set_smoothing(smoothing)).unwrap();
    }
    let mut steer = strafer(false);
    let mut input = |id: PlayerId, e: &RoomEndpoint| match id == target {
        true => steer.input(e.client().state().position, FRAME as f32),
        false => (Vec2::ZERO, false),
    };
    for frame in 0..seconds * 60 {
        if frame >= 240 && frame % 18 == 0 {
            let aim = s
                .endpoint(shooter)
                .unwrap()
                .proxies()
                .get(target)
                .map(|p| p.drawn_position());
            if let Some(aim) = aim {
                s.act(shooter, |e, now| e.fire(now, aim)).unwrap().unwrap();
            }
        }
        s.step(FRAME, &mut input);
    }
    (s, shooter, target)
}
