//! Both models behind one host and one endpoint: a live switch keeps the
//! connection, the link settings and the measured link; Pings, lag spikes,
//! settings and the quiet-client rule work in the rollback model as in the
//! CMC one; the rollback observer view is the server's true snapshot.

use sim::endpoints::link::QUIET_CLIENT_MS;
use sim::net::codec;
use sim::net::settings::LagSpike;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::protocol::{Setting, Setup};
use sim::rollback::{BotPlayer, RollbackConfig, RollbackObserver};
use sim::{ClientEndpoint, LocalSession, Model, NetSettings, ServerHost, SimTime, Vec2};

const FRAME: f64 = 1.0 / 60.0;

fn rollback() -> Model {
    Model::Rollback(RollbackConfig::default())
}

/// A session on `net` running `model` from the start.
fn session(seed: u64, net: NetSettings, model: Model) -> LocalSession {
    LocalSession::with_setup(
        seed,
        &Setup {
            net,
            model,
            ..Setup::default()
        },
    )
}

fn run(s: &mut LocalSession, bot: &mut BotPlayer, secs: f64) {
    for _ in 0..(secs / FRAME).round() as u32 {
        s.step_bot_player(bot, FRAME);
    }
}

#[test]
fn a_live_switch_keeps_the_connection_the_settings_and_the_measured_link() {
    let net = NetSettings::symmetric(150, 0, 0);
    let mut s = LocalSession::new(3, net);
    let mut bot = BotPlayer::new(0);
    run(&mut s, &mut bot, 5.0);
    let cmc = s.endpoint.metrics(s.now());
    assert!(cmc.acks > 30 && cmc.rollback.is_none(), "{cmc:?}");
    let (up_before, _) = s.endpoint.bytes_total();

    s.apply(Setting::Model(rollback()));
    run(&mut s, &mut bot, 5.0);
    assert_eq!(s.host.model(), rollback());
    assert_eq!(s.endpoint.model(), rollback());
    assert!(s.endpoint.cmc().is_none() && s.host.cmc().is_none());
    assert_eq!(s.host.settings(), net, "the link settings carry over");
    let m = s.endpoint.metrics(s.now());
    let r = m.rollback.expect("rollback metrics");
    // Pings went on through the switch: RTT is the configured 150 ms, and
    // the loss windows saw every Ping of the last 6.4 s answered.
    assert_eq!(m.rtt_ms.map(f64::round), Some(150.0));
    assert_eq!((m.loss_up, m.loss_down), (Some(0.0), Some(0.0)));
    // An Ack per server tick: 5 s at 60 Hz, less the first round trip.
    assert!((280..=300).contains(&r.acks), "{r:?}");
    assert_eq!(m.acks, r.acks);
    assert_eq!(r.hash_mismatches, 0);
    assert!(s.endpoint.bytes_total().0 > up_before);

    s.apply(Setting::Model(Model::Cmc));
    run(&mut s, &mut bot, 5.0);
    let back = s.endpoint.metrics(s.now());
    assert!(back.rollback.is_none());
    assert_eq!(s.host.model(), Model::Cmc);
    // A fresh CMC character: counters from zero, 10 Acks/s at most.
    assert!((30..=50).contains(&back.acks), "{back:?}");
    assert_eq!(back.adjustments, 0);
    assert_eq!(back.rtt_ms.map(f64::round), Some(150.0));
}

#[test]
fn rollback_settings_changed_before_the_welcome_are_in_force_once_it_arrives() {
    let mut s = session(5, NetSettings::symmetric(100, 0, 0), rollback());
    // The switch's Welcome has not arrived yet when redundancy changes.
    assert!(s.endpoint.rollback().is_none());
    let one = RollbackConfig {
        redundancy: 1,
        ..RollbackConfig::default()
    };
    s.apply(Setting::Model(Model::Rollback(one)));
    run(&mut s, &mut BotPlayer::new(0), 2.0);
    assert_eq!(s.endpoint.model(), Model::Rollback(one));
    assert_eq!(s.host.model(), Model::Rollback(one));
}

#[test]
fn asking_for_the_model_in_force_sends_nothing() {
    let mut e = ClientEndpoint::with_setup(1, &Setup::default());
    let first = e.frame(SimTime::ZERO, 0.0, Vec2::ZERO, false, false);
    let sent: Vec<ClientMsg> = first.iter().map(|f| codec::decode(f).unwrap()).collect();
    assert!(!sent.iter().any(|m| matches!(m, ClientMsg::SetModel(_))));
    e.apply(Setting::Model(Model::Cmc));
    assert!(e
        .frame(SimTime::ZERO, 0.0, Vec2::ZERO, false, false)
        .is_empty());
    e.apply(Setting::Model(rollback()));
    let out = e.frame(SimTime::ZERO, 0.0, Vec2::ZERO, false, false);
    assert_eq!(
        codec::decode::<ClientMsg>(&out[0]).unwrap(),
        ClientMsg::SetModel(rollback())
    );
}

#[test]
fn pings_lag_spikes_and_settings_work_in_the_rollback_model() {
    let mut s = session(5, NetSettings::symmetric(100, 0, 0), rollback());
    let mut bot = BotPlayer::new(0);
    run(&mut s, &mut bot, 3.0);
    // Pongs arrive at their own times: exactly the configured RTT.
    assert_eq!(s.endpoint.metrics(s.now()).rtt_last_ms, Some(100.0));

    // +400 ms each way for packets sent in the next second.
    s.apply(Setting::LagSpike(LagSpike {
        extra_ms: 400,
        duration_ms: 1000,
    }));
    let mut worst = 0.0f64;
    for _ in 0..120 {
        s.step_bot_player(&mut bot, FRAME);
        worst = worst.max(s.endpoint.metrics(s.now()).rtt_last_ms.unwrap());
    }
    assert!((900.0..=1000.0).contains(&worst), "worst RTT {worst}");
    let m = s.endpoint.metrics(s.now()).rollback.unwrap();
    // The client rode it out: no false desync, States still accepted.
    assert_eq!(m.hash_mismatches, 0);

    s.apply(Setting::Net(NetSettings::symmetric(200, 0, 0)));
    run(&mut s, &mut bot, 5.0);
    assert_eq!(s.endpoint.metrics(s.now()).rtt_last_ms, Some(200.0));
    let m = s.endpoint.metrics(s.now()).rollback.unwrap();
    // The time sync followed: the input buffer is back at its 2 ticks.
    assert!(
        (m.input_buffer.unwrap() - 2.0).abs() < 0.5,
        "{:?}",
        m.input_buffer
    );
}

/// Observer views in `frames`.
fn views(frames: &[Vec<u8>]) -> Vec<RollbackObserver> {
    frames
        .iter()
        .filter_map(|f| match codec::decode(f) {
            Ok(ServerMsg::RollbackObserver(v)) => Some(v),
            _ => None,
        })
        .collect()
}

#[test]
fn a_quiet_rollback_client_pauses_its_match_and_resumes_without_a_backlog() {
    assert_eq!(QUIET_CLIENT_MS, 1000);
    let mut host = ServerHost::new(2, SimTime::ZERO);
    let hello = |host: &mut ServerHost, now| {
        for m in [
            ClientMsg::SetNetSettings(NetSettings::symmetric(0, 0, 0)),
            ClientMsg::Hello,
            ClientMsg::SetModel(rollback()),
        ] {
            host.receive_msg(now, 1, m).unwrap();
        }
    };
    hello(&mut host, SimTime::ZERO);
    let mut now = SimTime::ZERO;
    let mut seen = 0;
    // Nothing more from the client: the host runs until it is quiet.
    while let Some(t) = host.next_wakeup() {
        now = t;
        seen += views(&host.poll(now)).len();
    }
    let paused = host.rollback().unwrap().server().tick().0;
    // Ticks and views ran for the 1 s before the client went quiet.
    assert_eq!(paused, 59, "the tick due at 1.0 s is the first not run");
    assert_eq!(seen, 20);
    assert!(now < SimTime::from_millis(1000), "{now:?}");

    // Five seconds later the client speaks: the match goes on from where
    // it paused, one tick per 1/60 s, no burst of the 300 ticks missed.
    let back = SimTime::from_millis(6000);
    host.receive_msg(back, 1, ClientMsg::Ping { id: 1 })
        .unwrap();
    host.poll_until(back.plus_millis(500));
    let tick = host.rollback().unwrap().server().tick().0;
    assert!((paused + 29..=paused + 31).contains(&tick), "tick {tick}");
}

#[test]
fn the_rollback_observer_view_is_the_servers_true_snapshot() {
    let mut s = session(7, NetSettings::symmetric(100, 0, 5), rollback());
    let mut bot = BotPlayer::new(0);
    run(&mut s, &mut bot, 2.0);
    // Poll the host at its wake-ups until the silent client is quiet;
    // right after a view leaves, the view and the authority agree.
    let mut checked = 0;
    let mut last_seq = 0;
    while let Some(now) = s.host.next_wakeup() {
        for v in views(&s.host.poll(now)) {
            let a = s.host.rollback().unwrap();
            assert_eq!(v.snapshot, *a.snapshot());
            assert_eq!(
                v.ticks.last().unwrap().position,
                a.snapshot().players[0].position
            );
            let c = a.client_inputs();
            assert_eq!(
                (v.totals.held, v.totals.defaulted),
                (c.held as u32, c.defaulted as u32)
            );
            assert_eq!(v.ticks.len(), 3);
            assert!(v.seq > last_seq);
            last_seq = v.seq;
            checked += 1;
        }
    }
    // One view every 50 ms for the second before the client went quiet,
    // three ticks in each.
    assert_eq!(checked, 20);
    // And the endpoint kept the last one it was sent.
    let endpoint_view = s.endpoint.rollback().unwrap().server_snapshot();
    assert!(endpoint_view.is_some());
}

/// 60 s of the same bot-player input at RTT 150 ms and 5 % loss on seed
/// 0 in either model: the counts behind the `models` example's table.
fn sixty_seconds(model: Model) -> (sim::Metrics, (u64, u64)) {
    let mut s = session(0, NetSettings::symmetric(150, 0, 5), model);
    let mut bot = BotPlayer::new(0);
    run(&mut s, &mut bot, 60.0);
    (s.endpoint.metrics(s.now()), s.endpoint.bytes_total())
}

#[test]
fn at_rtt_150_and_5_percent_loss_rollback_rebases_every_state_where_cmc_corrects_a_few_moves() {
    let (cmc, (cmc_up, cmc_down)) = sixty_seconds(Model::Cmc);
    let (rb, (rb_up, rb_down)) = sixty_seconds(rollback());
    let r = rb.rollback.unwrap();
    println!(
        "CMC: {} adjustments, {} moves replayed, {cmc_up} B up, {cmc_down} B down; \
         rollback: {} visible of {} rebases, {} ticks re-simulated, {rb_up} B up, {rb_down} B down",
        cmc.adjustments, cmc.replayed_moves, r.rollbacks, r.rebases, r.resimulated_ticks
    );
    // Corrections a player sees: a handful either way.
    assert!((1..=20).contains(&cmc.adjustments), "{cmc:?}");
    assert!((1..=20).contains(&r.rollbacks), "{r:?}");
    // But rollback restores every State it gets (30/s less 5 %) and
    // re-simulates the ≈ 11 ticks it runs ahead each time: hundreds of
    // times CMC's replayed moves.
    assert!((1650..=1760).contains(&r.rebases), "{r:?}");
    assert!(r.resimulated_ticks > 100 * cmc.replayed_moves, "{r:?}");
    // Inputs every tick up vs moves at ≤ 60 Hz; an Ack every tick and a
    // State every 2 down vs an Ack per 0.1 s and a proxy update per 50 ms.
    assert!(
        rb_up > cmc_up * 3 / 2 && rb_down > cmc_down * 5,
        "{rb_up} {rb_down}"
    );
}
