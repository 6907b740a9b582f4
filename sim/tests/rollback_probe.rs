use sim::rollback::{BotPlayer, RollbackConfig, RollbackSession};
use sim::NetSettings;

#[test]
fn probe() {
    for (rtt, jitter, loss) in [
        (0, 0, 0),
        (100, 0, 0),
        (200, 0, 0),
        (150, 0, 5),
        (200, 20, 0),
    ] {
        let mut s = RollbackSession::new(
            1,
            NetSettings::symmetric(rtt, jitter, loss),
            RollbackConfig::default(),
        )
        .unwrap();
        let mut bot = BotPlayer::new(0);
        for i in 0..3600 {
            s.step_bot(&mut bot, 1.0 / 60.0);
            if i % 600 == 599 {
                let now = s.now();
                let m = s.endpoint.metrics(now);
                println!(
                    "rtt {rtt} j {jitter} loss {loss} t={:.0}s {:?}",
                    now.as_millis() as f64 / 1000.0,
                    m
                );
            }
        }
        println!(
            "host {:?} {:?} client {:?}",
            s.host.client_inputs(),
            s.host.counters(),
            s.endpoint.client().unwrap().counters()
        );
    }
}
