//! Prints, for a 60 s bot run at RTT 150 ms and 5 % loss (seed 1), the
//! adjustments and replayed moves with each prediction mechanism on and off
//! — the table in issue #3's note.
//!
//! `cargo run --release -p sim --example mechanisms`

use sim::{Bot, ClientConfig, LocalSession, NetSettings, ServerRules};

fn run(label: &str, client: ClientConfig, rules: ServerRules) {
    let mut adjustments = 0;
    let mut replayed = 0;
    let mut sent = 0;
    let seeds = 5;
    for seed in 0..seeds {
        let mut s = LocalSession::new(seed, NetSettings::symmetric(150, 0, 5));
        s.endpoint.set_client_config(client);
        s.endpoint.set_server_rules(rules);
        let mut bot = Bot::new();
        for _ in 0..3600 {
            s.step_bot(&mut bot, 1.0 / 60.0);
        }
        let m = s.endpoint.metrics(s.now());
        adjustments += m.adjustments;
        replayed += m.replayed_moves;
        sent += m.moves_sent;
    }
    println!(
        "| {label:<44} | {:>7.1} | {:>7.1} | {:>7.0} |",
        adjustments as f64 / seeds as f64,
        replayed as f64 / seeds as f64,
        sent as f64 / seeds as f64
    );
}

fn main() {
    let c = ClientConfig::default();
    let r = ServerRules::default();
    println!("60 s bot, RTT 150 ms, 5 % loss, mean of 5 seeds");
    println!("| configuration | adjustments | replayed moves | ServerMoves sent |");
    println!("|---|---|---|---|");
    run("defaults (all mechanisms on, 90 Hz sends)", c, r);
    run(
        "old-move redundancy off",
        ClientConfig {
            old_move_redundancy: false,
            ..c
        },
        r,
    );
    run(
        "combining off",
        ClientConfig {
            combine_moves: false,
            ..c
        },
        r,
    );
    run(
        "send rate 30 Hz (combining on)",
        ClientConfig {
            send_interval: 1.0 / 30.0,
            ..c
        },
        r,
    );
    run(
        "send rate 30 Hz, old-move redundancy off",
        ClientConfig {
            send_interval: 1.0 / 30.0,
            old_move_redundancy: false,
            ..c
        },
        r,
    );
    run(
        "error threshold 1.7 cm (engine default)",
        c,
        ServerRules {
            max_position_error_tenth_cm: 17,
            ..r
        },
    );
    run(
        "separate intervals: adjustments every 0 ms",
        c,
        ServerRules {
            adjustment_interval_ms: 0,
            ..r
        },
    );
    run(
        "push zone on (server only)",
        c,
        ServerRules {
            server_effects: true,
            ..r
        },
    );
    run(
        "client-only speed buff",
        ClientConfig {
            speed_buff: true,
            ..c
        },
        r,
    );
    run(
        "dash outside the SavedMove (bug)",
        ClientConfig {
            dash_outside_saved_move: true,
            ..c
        },
        r,
    );
    run(
        "forced adjustments 5 %",
        c,
        ServerRules {
            forced_adjustment_percent: 5,
            ..r
        },
    );
    run(
        "forced ServerMove loss 5 %",
        ClientConfig {
            forced_move_loss_percent: 5.0,
            ..c
        },
        r,
    );
    run(
        "time-discrepancy resolution on",
        c,
        ServerRules {
            time_discrepancy_resolution: true,
            ..r
        },
    );
}
