//! Set-ups shared by the `sim` and `wire` benches. Every call whose
//! signature tends to move while `sim` grows is wrapped here, once.
#![allow(dead_code)]

use sim::cmc::wire::ServerMove;
use sim::net::codec;
use sim::protocol::ClientMsg;
use sim::{
    Bot, Client, MoveResponse, MovementParams, ServerCharacter, ServerConfig, SimTime,
    SmoothingMode, World,
};

/// One client frame, s.
pub const FRAME: f64 = 1.0 / 60.0;

/// Server time of client frame `i` (60 Hz), as the relay's clock would read.
pub fn frame_time(i: u64) -> SimTime {
    SimTime(i * 1_000_000 / 60)
}

/// A server for the default arena and rules.
pub fn server(world: &World) -> ServerCharacter {
    ServerCharacter::new(
        MovementParams::default(),
        ServerConfig::default(),
        world.spawn,
    )
}

/// `ServerCharacter::receive_server_move` at server time `now`.
pub fn receive(server: &mut ServerCharacter, m: &ServerMove, now: SimTime, world: &World) -> usize {
    server.receive_server_move(m, now, world).len()
}

/// One client frame with the page's smoothing.
pub fn tick(client: &mut Client, dir: sim::Vec2, dash: bool, world: &World) -> Option<ServerMove> {
    client.tick(FRAME, dir, dash, SmoothingMode::Exponential, world)
}

/// `frames` frames of the bot's tour from spawn by a client whose server
/// answers at once (so acks flow and packets look like the page's).
/// Returns the ServerMoves sent, each with the frame index it left at.
pub fn bot_server_moves(frames: u64) -> Vec<(u64, ServerMove)> {
    let world = World::arena();
    let mut client = Client::new(MovementParams::default(), world.spawn);
    let mut server = server(&world);
    let mut bot = Bot::new();
    let mut out = Vec::new();
    for i in 0..frames {
        let (dir, dash) = bot.input(client.state().position, FRAME as f32);
        if let Some(m) = tick(&mut client, dir, dash, &world) {
            receive(&mut server, &m, frame_time(i), &world);
            out.push((i, m));
        }
        if let Some(r) = server.flush(frame_time(i)) {
            client.handle_move_response(&r, &world);
        }
    }
    out
}

/// The encoded ServerMove frames of [`bot_server_moves`].
pub fn bot_frames(frames: u64) -> Vec<Vec<u8>> {
    bot_server_moves(frames)
        .into_iter()
        .map(|(_, m)| codec::encode(&ClientMsg::ServerMove(m)))
        .collect()
}

/// The most common frame (by length, then the first of that length).
pub fn typical_frame(frames: &[Vec<u8>]) -> Vec<u8> {
    let mut counts = std::collections::BTreeMap::<usize, usize>::new();
    for f in frames {
        *counts.entry(f.len()).or_default() += 1;
    }
    let len = counts
        .iter()
        .max_by_key(|&(_, n)| *n)
        .map(|(&l, _)| l)
        .unwrap_or(0);
    frames
        .iter()
        .find(|f| f.len() == len)
        .cloned()
        .unwrap_or_default()
}

/// A client that has predicted `n + 1` bot-driven moves and a real
/// Adjustment of the oldest one (the server was told a location 50 cm
/// off), which leaves `n` moves to replay on the next tick. Mirrors
/// `bench_replay` in web-client.
pub fn replay_setup(n: usize) -> (Client, MoveResponse, MoveResponse, World) {
    let world = World::arena();
    let mut client = Client::new(MovementParams::default(), world.spawn);
    let mut bot = Bot::new();
    let mut first: Option<ServerMove> = None;
    let mut frames = 0;
    while client.saved_moves().len() < n + 1 {
        let (dir, dash) = bot.input(client.state().position, FRAME as f32);
        let m = tick(&mut client, dir, dash, &world);
        if first.is_none() {
            first = m;
        }
        frames += 1;
        assert!(frames < 10 * (n + 1), "the SavedMove queue does not grow");
    }
    let first = first.expect("the first frame sends a ServerMove");
    let oldest = client
        .saved_moves()
        .iter()
        .next()
        .expect("a move")
        .time_stamp;
    assert_eq!(
        first.new_move.time_stamp, oldest,
        "first ServerMove = oldest SavedMove"
    );
    // An honest server acks it; told 50 cm off (over 16 cm), it corrects.
    let mut good = server(&world);
    receive(&mut good, &first, frame_time(0), &world);
    let ack = good.flush(frame_time(0)).expect("an Ack");
    let mut wrong = first.clone();
    wrong.client_location.y += 5_000;
    let mut strict = server(&world);
    receive(&mut strict, &wrong, frame_time(0), &world);
    let adjustment = strict.flush(frame_time(0)).expect("an Adjustment");
    assert!(matches!(adjustment, MoveResponse::Adjustment { .. }));
    assert!(matches!(ack, MoveResponse::Ack { .. }));
    (client, adjustment, ack, world)
}
