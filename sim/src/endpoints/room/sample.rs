//! [`brawl`]: the room a playback's costs are measured on (issue 23,
//! "inspecting a recorded 60 s room of 4 players"), natively
//! (`benches/room.rs`, `room_playback`) and in wasm (the page's
//! `bench_room_playback`), from one definition.

use super::recording::RoomRecording;
use super::reports::shots::strafer;
use super::session::RoomSession;
use crate::foundation::math::Vec2;
use crate::net::settings::NetSettings;
use crate::room::config::RoomConfig;
use crate::room::weapon::WeaponConfig;
use crate::room::PlayerId;

/// Players in the brawl.
pub const BRAWL_PLAYERS: usize = 4;

/// Frames between one player's shots (400 ms at 60 fps).
const FIRE_EVERY: u64 = 24;

/// A recorded room of [`BRAWL_PLAYERS`] for `seconds` at 60 fps: players
/// at RTT 50 / 100 / 150 / 200 ms (±10 ms, 2 % loss), the odd ones
/// strafing, each firing at the next player as drawn every 400 ms from
/// 2 s (in turn, 100 ms apart), with a 200-round magazine.
pub fn brawl(seconds: u32) -> RoomRecording {
    let config = RoomConfig {
        weapon: WeaponConfig {
            magazine: 200,
            ..WeaponConfig::default()
        },
        ..RoomConfig::default()
    };
    let mut s = RoomSession::new(config, 47).expect("the default room takes 4 players");
    s.host.record(usize::MAX).expect("a new room");
    let ids: Vec<PlayerId> = [50, 100, 150, 200]
        .into_iter()
        .map(|rtt| {
            s.join(NetSettings::symmetric(rtt, 10, 2))
                .expect("the default room takes 4 players")
        })
        .collect();
    let mut steer: Vec<_> = (0..BRAWL_PLAYERS).map(|_| strafer(false)).collect();
    let frame_s = 1.0 / 60.0;
    for frame in 0..u64::from(seconds) * 60 {
        for (k, &shooter) in ids.iter().enumerate() {
            let turn = frame >= 120 && frame % FIRE_EVERY == (k as u64 * 6) % FIRE_EVERY;
            let target = ids[(k + 1) % BRAWL_PLAYERS];
            let aim = s
                .endpoint(shooter)
                .and_then(|e| e.proxies().get(target).map(|p| p.drawn_position()));
            if let (true, Some(aim)) = (turn, aim) {
                // A refusal (clock not synced yet) is part of the run.
                let _ = s.act(shooter, |e, now| e.fire(now, aim));
            }
        }
        s.step(frame_s, |id, e| {
            let k = ids.iter().position(|&p| p == id).unwrap_or(0);
            match k % 2 {
                1 => steer[k].input(e.client().state().position, frame_s as f32),
                _ => (Vec2::ZERO, false),
            }
        });
    }
    s.host.recording().expect("recording").clone()
}
