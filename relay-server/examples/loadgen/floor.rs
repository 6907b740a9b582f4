//! The transport floor: a bare tokio-tungstenite server that does only
//! what no relay can avoid — accept the WebSocket, answer Hello with a
//! Welcome, each ServerMove with an Ack for its time stamp and each Ping
//! with a Pong — with no link conditioner, no simulation, no budgets and
//! no net updates. The load test runs it beside the relay, with the same
//! sessions sending the same traffic, and reports the relay's CPU and
//! latency as ratios to it: ratios survive a noisy machine, absolute
//! figures do not.
//!
//! It runs as this binary in another process (`--serve-floor`), pinned
//! like the relay, so that its CPU is read the same way.

use futures_util::{SinkExt, StreamExt};
use sim::cmc::rules::ServerRules;
use sim::cmc::wire::MoveResponse;
use sim::net::codec;
use sim::net::link_stats::SeqWindow;
use sim::net::settings::NetSettings;
use sim::protocol::{ClientMsg, ServerMsg};
use sim::{MovementParams, World};
use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::Message;

/// Read buffer per connection, bytes: the relay's.
const READ_BUFFER: usize = 512;

/// Serves the floor on a free loopback port until killed; prints
/// `listening on ws://…/ws` first. Runs on a one-thread runtime, as the
/// pinned relay does.
pub fn serve() -> anyhow::Result<()> {
    let rt = relay_server::runtime(1)?;
    rt.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        println!("listening on ws://{}/ws", listener.local_addr()?);
        loop {
            let (tcp, _) = listener.accept().await?;
            tcp.set_nodelay(true)?;
            tokio::spawn(async move {
                let config = WebSocketConfig::default().read_buffer_size(READ_BUFFER);
                if let Ok(ws) = tokio_tungstenite::accept_async_with_config(tcp, Some(config)).await
                {
                    connection(ws).await;
                }
            });
        }
    })
}

/// One connection: an answer per message, nothing else.
async fn connection(mut ws: tokio_tungstenite::WebSocketStream<tokio::net::TcpStream>) {
    let mut pings = SeqWindow::default();
    while let Some(Ok(msg)) = ws.next().await {
        let Message::Binary(bytes) = msg else {
            continue;
        };
        let answer = match codec::decode::<ClientMsg>(&bytes) {
            Ok(ClientMsg::Hello) => ServerMsg::Welcome {
                world: World::arena(),
                params: MovementParams::default(),
                settings: NetSettings::default(),
                rules: ServerRules::default(),
                model: sim::Model::Cmc,
            },
            Ok(ClientMsg::ServerMove(m)) => ServerMsg::MoveResponse(MoveResponse::Ack {
                time_stamp: m.new_move.time_stamp,
            }),
            Ok(ClientMsg::Ping { id }) => {
                pings.record(id);
                ServerMsg::Pong {
                    id,
                    received: pings,
                }
            }
            _ => continue,
        };
        if ws
            .send(Message::Binary(codec::encode(&answer).into()))
            .await
            .is_err()
        {
            return;
        }
    }
}

/// The floor as a child process of the load generator, killed on drop.
pub struct Floor {
    child: Child,
    /// Its WebSocket URL.
    pub url: String,
}

impl Floor {
    /// Starts this binary in floor mode, pinned to `cpu` if given.
    ///
    /// # Errors
    /// If it does not start or never says where it listens.
    pub fn start(cpu: Option<usize>) -> anyhow::Result<Floor> {
        let me = std::env::current_exe()?;
        let mut command = match cpu {
            Some(cpu) => {
                let mut c = Command::new("taskset");
                c.args(["-c", &cpu.to_string()]).arg(&me);
                c
            }
            None => Command::new(&me),
        };
        let mut child = command
            .arg("--serve-floor")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| anyhow::anyhow!("no stdout"))?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        let Some(url) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            anyhow::bail!("the floor said {line:?}");
        };
        Ok(Floor {
            url: url.to_owned(),
            child,
        })
    }

    /// Its process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Its resident memory, KiB (0 if unreadable).
    pub fn rss_kib(&self) -> u64 {
        crate::common::rss_kib_of(self.pid()).unwrap_or(0)
    }
}

impl Drop for Floor {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
