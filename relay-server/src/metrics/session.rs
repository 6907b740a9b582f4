//! One session's counts ([`SessionMetrics`]): frames by kind and poll
//! times in plain fields, added to the shared [`Metrics`] at most once per
//! [`FLUSH_INTERVAL`] and when the session ends.

use super::{Metrics, FLUSH_INTERVAL};
use prometheus::local::LocalHistogram;
use sim::protocol::PROTOCOL_VERSION;
use std::sync::Arc;
use std::time::Instant;

/// `kind` label of frames in, by the message's tag (`sim`'s `ClientMsg`
/// variant order); `other` for frames that are not a known message.
pub(crate) const CLIENT_KINDS: [&str; 14] = [
    "hello",
    "server_move",
    "set_net_settings",
    "set_server_rules",
    "ping",
    "lag_spike",
    "resume",
    "set_model",
    "inputs",
    "room",
    "trace",
    "set_transport",
    "seat_report",
    "other",
];

/// `kind` label of frames out, by `sim`'s `ServerMsg` variant order.
pub(crate) const SERVER_KINDS: [&str; 12] = [
    "welcome",
    "move_response",
    "proxy",
    "observer",
    "pong",
    "error",
    "session_token",
    "rollback",
    "rollback_observer",
    "room",
    "trace",
    "other",
];

/// Index of a frame's kind in a table of `n` kinds (the last is `other`):
/// the tag byte that follows the version byte (postcard writes an enum's
/// variant index as a varint: one byte below 128).
fn kind_index(frame: &[u8], n: usize) -> usize {
    match frame {
        [PROTOCOL_VERSION, tag, ..] if usize::from(*tag) < n - 1 => usize::from(*tag),
        _ => n - 1,
    }
}

/// One session's counts, added to the shared metrics at most once per
/// [`FLUSH_INTERVAL`] and when dropped.
#[derive(Debug)]
pub(crate) struct SessionMetrics {
    shared: Arc<Metrics>,
    /// A private session counts as a room.
    private: bool,
    frames_in: [u64; CLIENT_KINDS.len()],
    frames_out: [u64; SERVER_KINDS.len()],
    poll: LocalHistogram,
    last_flush: Instant,
}

impl SessionMetrics {
    /// Counts for a session of `shared` (a `private` one is a room too).
    pub(super) fn new(shared: &Arc<Metrics>, private: bool) -> SessionMetrics {
        SessionMetrics {
            private,
            frames_in: [0; CLIENT_KINDS.len()],
            frames_out: [0; SERVER_KINDS.len()],
            poll: shared.poll.local(),
            last_flush: Instant::now(),
            shared: Arc::clone(shared),
        }
    }

    /// A binary frame arrived.
    pub(crate) fn frame_in(&mut self, frame: &[u8]) {
        self.frames_in[kind_index(frame, CLIENT_KINDS.len())] += 1;
    }

    /// Read the clock before a poll; hand the result to [`Self::polled`].
    pub(crate) fn poll_started(&self) -> Instant {
        Instant::now()
    }

    /// A poll that began at `started` produced `frames`, about to be sent.
    pub(crate) fn polled(&mut self, started: Instant, frames: &[Vec<u8>]) {
        self.poll
            .observe(Instant::now().duration_since(started).as_secs_f64());
        self.sent(frames);
    }

    /// `frames` are about to be sent (a shared room's, polled by its task).
    pub(crate) fn sent(&mut self, frames: &[Vec<u8>]) {
        for frame in frames {
            self.frames_out[kind_index(frame, SERVER_KINDS.len())] += 1;
        }
        let now = Instant::now();
        if now.duration_since(self.last_flush) >= FLUSH_INTERVAL {
            self.last_flush = now;
            self.flush();
        }
    }

    fn flush(&mut self) {
        let pairs = (self.shared.frames_in.iter().zip(&mut self.frames_in))
            .chain(self.shared.frames_out.iter().zip(&mut self.frames_out));
        for (counter, n) in pairs {
            if *n > 0 {
                counter.inc_by(std::mem::take(n));
            }
        }
        self.poll.flush();
    }
}

impl Drop for SessionMetrics {
    fn drop(&mut self) {
        self.flush();
        self.shared.sessions.dec();
        if self.private {
            self.shared.rooms.dec();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::net::codec;
    use sim::protocol::{ClientMsg, ServerMsg};
    use sim::{SimTime, TimeStamp};

    /// The label a decoded message must get: exhaustive, so a new variant
    /// in `sim` fails to compile here until the tables know it.
    fn client_kind(m: &ClientMsg) -> &'static str {
        match m {
            ClientMsg::Hello => "hello",
            ClientMsg::ServerMove(_) => "server_move",
            ClientMsg::SetNetSettings(_) => "set_net_settings",
            ClientMsg::SetServerRules(_) => "set_server_rules",
            ClientMsg::Ping { .. } => "ping",
            ClientMsg::LagSpike(_) => "lag_spike",
            ClientMsg::Resume { .. } => "resume",
            ClientMsg::SetModel(_) => "set_model",
            ClientMsg::Inputs(_) => "inputs",
            ClientMsg::Room(_) => "room",
            ClientMsg::Trace(_) => "trace",
            ClientMsg::SetTransport(_) => "set_transport",
            ClientMsg::SeatReport(_) => "seat_report",
        }
    }

    fn server_kind(m: &ServerMsg) -> &'static str {
        match m {
            ServerMsg::Welcome { .. } => "welcome",
            ServerMsg::MoveResponse(_) => "move_response",
            ServerMsg::Proxy(_) => "proxy",
            ServerMsg::Observer(_) => "observer",
            ServerMsg::Pong { .. } => "pong",
            ServerMsg::Error { .. } => "error",
            ServerMsg::SessionToken { .. } => "session_token",
            ServerMsg::Rollback(_) => "rollback",
            ServerMsg::RollbackObserver(_) => "rollback_observer",
            ServerMsg::Room(_) => "room",
            ServerMsg::Trace(_) => "trace",
        }
    }

    #[test]
    fn every_client_message_is_counted_under_its_own_kind() {
        use sim::cmc::rules::ServerRules;
        use sim::cmc::wire::{NetPosition, NetworkMove, ServerMove};
        use sim::net::settings::LagSpike;
        use sim::protocol::ResumeToken;
        let msgs = [
            ClientMsg::Hello,
            ClientMsg::ServerMove(ServerMove::new(
                1,
                NetworkMove {
                    time_stamp: TimeStamp(16),
                    input: sim::MoveInput::default(),
                },
                NetPosition::default(),
            )),
            ClientMsg::SetNetSettings(sim::NetSettings::symmetric(100, 0, 0)),
            ClientMsg::SetServerRules(ServerRules::default()),
            ClientMsg::Ping { id: 1 },
            ClientMsg::LagSpike(LagSpike {
                extra_ms: 100,
                duration_ms: 1000,
            }),
            ClientMsg::Resume {
                token: ResumeToken([1; 16]),
            },
            ClientMsg::SetModel(sim::Model::Cmc),
            ClientMsg::Inputs(sim::rollback::InputPacket {
                ids: sim::rollback::wire::Ids::new(1, 1, 0),
                newest: sim::rollback::Tick(3),
                inputs: vec![sim::rollback::wire::PackedInput::default()],
            }),
            ClientMsg::Room(sim::room::RoomClientMsg::Join),
            ClientMsg::Trace(sim::net::trace_wire::TraceRequest::default()),
            ClientMsg::SetTransport(sim::net::transport::LinkTransport::ReliableOrdered),
            ClientMsg::SeatReport(sim::rollback::wire::SeatReport {
                ids: sim::rollback::wire::Ids::new(1, 1, 0),
                stats: sim::rollback::wire::ReportedStats::default(),
            }),
        ];
        for m in &msgs {
            let i = kind_index(&codec::encode(m), CLIENT_KINDS.len());
            assert_eq!(CLIENT_KINDS[i], client_kind(m));
        }
        let other = CLIENT_KINDS.len() - 1;
        assert_eq!(kind_index(&[], CLIENT_KINDS.len()), other);
        assert_eq!(
            kind_index(&[42, 0], CLIENT_KINDS.len()),
            other,
            "wrong version"
        );
        assert_eq!(
            kind_index(&[PROTOCOL_VERSION, 99], CLIENT_KINDS.len()),
            other
        );
    }

    #[test]
    fn every_server_message_a_host_sends_is_counted_under_its_own_kind() {
        let mut host = sim::ServerHost::new(1, SimTime::ZERO);
        let mut seen = std::collections::BTreeSet::new();
        host.receive_frame(SimTime::ZERO, &codec::encode(&ClientMsg::Hello))
            .unwrap();
        host.receive_frame(SimTime::ZERO, &codec::encode(&ClientMsg::Ping { id: 1 }))
            .unwrap();
        host.receive_frame(
            SimTime::ZERO,
            &codec::encode(&ClientMsg::Trace(
                sim::net::trace_wire::TraceRequest::default(),
            )),
        )
        .unwrap();
        host.send_error("x".into());
        let mut frames = Vec::new();
        for ms in (0..600).step_by(10) {
            frames.extend(host.poll(SimTime(ms * 1000)));
            for b in host.take_trace() {
                frames.push(codec::encode(&ServerMsg::Trace(Box::new(b))));
            }
        }
        frames.push(codec::encode(&ServerMsg::SessionToken {
            token: sim::protocol::ResumeToken([0; 16]),
            grace_ms: 1,
        }));
        for f in &frames {
            let m: ServerMsg = codec::decode(f).unwrap();
            let i = kind_index(f, SERVER_KINDS.len());
            assert_eq!(SERVER_KINDS[i], server_kind(&m));
            seen.insert(SERVER_KINDS[i]);
        }
        assert!(seen.len() >= 6 && seen.contains("trace"), "{seen:?}");
    }

    #[test]
    fn session_counts_reach_the_shared_metrics_when_flushed_or_dropped() {
        let metrics = Arc::new(Metrics::new("test"));
        let mut s = metrics.session(true);
        assert_eq!(metrics.sessions(), 1);
        s.frame_in(&codec::encode(&ClientMsg::Ping { id: 1 }));
        let t = s.poll_started();
        s.polled(
            t,
            &[codec::encode(&ServerMsg::Error { reason: "x".into() })],
        );
        assert!(!metrics
            .render()
            .contains("relay_frames_in_total{kind=\"ping\"} 1"));
        drop(s);
        let text = metrics.render();
        assert!(
            text.contains("relay_frames_in_total{kind=\"ping\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("relay_frames_out_total{kind=\"error\"} 1"),
            "{text}"
        );
        assert!(text.contains("relay_host_poll_seconds_count 1"), "{text}");
        assert!(text.contains("relay_sessions 0"), "{text}");
        assert!(text.contains("relay_info{instance=\"test\""), "{text}");
    }
}
