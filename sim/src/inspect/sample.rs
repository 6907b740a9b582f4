//! The run the inspector's costs are measured on, natively
//! (`sim/benches/inspect.rs`) and in wasm (`web-client`'s `bench_scrub`):
//! one definition, so the two measure the same thing.

use crate::foundation::bot::Bot;
use crate::net::settings::NetSettings;
use crate::protocol::Model;
use crate::protocol::Setup;
use crate::rollback::{BotPlayer, InputCmd};
use crate::scenario::{Scenario, ScenarioRun};

/// The recorded frame, s (60 Hz).
const FRAME: f64 = 1.0 / 60.0;

/// `seconds` s of the bot (CMC) or the rollback bot player at RTT 150 ms
/// ± 10 ms and 10 % loss each way, recorded at 60 Hz from seed 7.
pub fn bot_run(seconds: u32, model: Model) -> Scenario {
    let setup = Setup {
        net: NetSettings::symmetric(150, 10, 10),
        model,
        ..Setup::default()
    };
    let mut run = ScenarioRun::record("bench", 7, setup);
    let (mut bot, mut player) = (Bot::new(), BotPlayer::new(7));
    for _ in 0..seconds * 60 {
        let at = run.endpoint().position();
        let (dir, dash, fire) = match model {
            Model::Cmc => {
                let (dir, dash) = bot.input(at, FRAME as f32);
                (dir, dash, false)
            }
            Model::Rollback(_) => {
                let (dir, buttons) = player.input(at, FRAME as f32);
                (
                    dir,
                    buttons & InputCmd::DASH != 0,
                    buttons & InputCmd::FIRE != 0,
                )
            }
        };
        run.step_live(FRAME, dir, dash, fire);
    }
    run.stop_recording();
    run.scenario().clone()
}
