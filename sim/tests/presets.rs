//! Measured, not configured: every preset runs 60 s of bot through a
//! `LocalSession`, and what the client *measures* by Ping/Pong (RTT p50 /
//! p99, loss each way over 64-probe windows) follows what is configured.
//! `cargo test -p sim --test presets -- --nocapture` prints the table.

use sim::{Bot, LocalSession, Preset};

const FRAME: f64 = 1.0 / 60.0;
/// One loss window: 64 Pings at 10 Hz.
const WINDOW_FRAMES: u32 = 384;

#[test]
fn measured_rtt_and_loss_follow_every_preset() {
    println!(
        "| preset | configured RTT ms | measured RTT p50 / p99 ms | jitter ms | configured loss up / down % | measured loss up / down % |"
    );
    println!("|---|---|---|---|---|---|");
    for preset in Preset::ALL {
        let settings = preset.settings();
        let mut s = LocalSession::new(42, settings);
        let mut bot = Bot::new();
        let (mut up, mut down, mut windows) = (0.0, 0.0, 0.0);
        let (mut p50s, mut p99) = (Vec::new(), 0.0f64);
        for frame in 1..=3600u32 {
            s.step_bot(&mut bot, FRAME);
            if frame % WINDOW_FRAMES == 0 {
                let m = s.endpoint.metrics(s.now());
                up += m.loss_up.unwrap();
                down += m.loss_down.unwrap();
                windows += 1.0;
                p50s.push(m.rtt_p50_ms.unwrap());
                p99 = p99.max(m.rtt_p99_ms.unwrap());
            }
        }
        let m = s.endpoint.metrics(s.now());
        let (up, down) = (up / windows, down / windows);
        p50s.sort_by(f64::total_cmp);
        let p50 = p50s[p50s.len() / 2];
        let rtt = f64::from(settings.rtt_ms());
        let (cu, cd) = (settings.uplink.mean_loss(), settings.downlink.mean_loss());
        println!(
            "| {} | {rtt:.0} | {p50:.0} / {p99:.0} | {:.1} | {:.1} / {:.1} | {:.1} / {:.1} |",
            preset.label(),
            m.jitter_ms.unwrap(),
            cu * 100.0,
            cd * 100.0,
            up * 100.0,
            down * 100.0,
        );
        // The median RTT sits within the jitter of the configured RTT plus
        // one 16.7 ms frame (the session runs at 60 Hz) and the FIFO hold.
        let jitter = f64::from(settings.uplink.jitter_ms + settings.downlink.jitter_ms);
        assert!(
            p50 >= rtt - jitter && p50 <= rtt + jitter + 20.0,
            "{preset:?}: p50 {p50} vs {rtt}"
        );
        // 9 windows of 64 probes: within 4 points (≈ 3σ at 10 % loss).
        assert!((up - cu).abs() < 0.04, "{preset:?}: up {up} vs {cu}");
        assert!((down - cd).abs() < 0.04, "{preset:?}: down {down} vs {cd}");
    }
}

#[test]
fn a_lag_spike_shows_for_its_duration_and_in_the_measured_rtt() {
    let mut s = LocalSession::new(1, sim::NetSettings::symmetric(100, 0, 0));
    let mut bot = Bot::new();
    for _ in 0..300 {
        s.step_bot(&mut bot, FRAME);
    }
    s.endpoint.start_lag_spike(sim::LagSpike {
        extra_ms: 400,
        duration_ms: 2000,
    });
    let (mut spiking, mut worst) = (0u32, 0.0f64);
    for _ in 0..300 {
        s.step_bot(&mut bot, FRAME);
        let m = s.endpoint.metrics(s.now());
        spiking += u32::from(m.link.up.in_spike);
        worst = worst.max(m.rtt_last_ms.unwrap());
    }
    // 2 s at 60 Hz, give or take the frame the spike starts in and the
    // observer snapshot's 33 ms period.
    assert!((118..=123).contains(&spiking), "{spiking} frames");
    // Both directions +400 ms: a Ping sent in the spike takes 100 + 800.
    assert!((880.0..=920.0).contains(&worst), "worst RTT {worst}");
}
