//! A room's checkpoint: what another relay needs to carry the room on as a
//! whole (issue #27) — every seat with its player id, the hash of its
//! resume token, its address, its player settings and link settings; the
//! bots; the room's `MaxRecordTime`. Written by the room's task whenever
//! one of them changes, stored with the room's lease in PostgreSQL
//! (`crate::homes`), and read by the relay that takes the room over,
//! which makes the same room with the same ids and parks each seat under
//! its token's hash, so each player's Resume takes their seat back.
//!
//! Not carried: where the characters stand and how fast they move (the
//! room's new home starts everyone at their spawn point, as after a
//! respawn: the first Adjustment moves a resumed player there), a
//! character's server rules (back to UE's defaults), the frame history
//! (rewinds start afresh), the link conditioners' packets in flight, the
//! ammo. Encoded as JSON (a few hundred bytes), readable in `psql`.

use crate::token::TokenHash;
use serde::{Deserialize, Serialize};
use sim::endpoints::room::RoomHost;
use sim::room::{PlayerId, PlayerSettings};
use sim::{NetSettings, SimTime};
use std::net::IpAddr;

/// The format version this relay writes and reads.
const VERSION: u8 = 1;

/// See the module docs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Checkpoint {
    /// [`VERSION`].
    pub(crate) v: u8,
    /// The room's frame history length, ms.
    pub(crate) max_record_time_ms: u16,
    /// Every player and bot, in id order.
    pub(crate) members: Vec<Member>,
}

/// One player or bot of a checkpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Member {
    /// Its id in the room.
    pub(crate) id: u32,
    /// A bot, or a seat and what it holds.
    #[serde(flatten)]
    pub(crate) kind: MemberKind,
}

/// What a member is.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum MemberKind {
    /// A server-driven bot.
    Bot,
    /// A remote player's seat.
    Player {
        /// The hash of the resume token that takes the seat back.
        token: TokenHash,
        /// The client's address (the seat counts against it).
        addr: IpAddr,
        /// The player's room switches.
        settings: PlayerSettings,
        /// The player's link settings.
        net: NetSettings,
    },
}

/// A seat of the room now: its player and resume token (if the session
/// has one) and address.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SeatState {
    /// The player in it.
    pub(crate) id: PlayerId,
    /// The hash of the session's resume token.
    pub(crate) token: Option<TokenHash>,
    /// The client's address.
    pub(crate) addr: IpAddr,
}

impl Checkpoint {
    /// The checkpoint of `host` with its `seats`. A seat without a token
    /// cannot be resumed, so it is left out (as is a player of the host
    /// without a seat).
    pub(crate) fn of<'a>(
        host: &RoomHost,
        seats: impl Iterator<Item = &'a SeatState>,
    ) -> Checkpoint {
        let mut members: Vec<Member> = seats
            .filter_map(|s| {
                Some(Member {
                    id: s.id.0,
                    kind: MemberKind::Player {
                        token: s.token?,
                        addr: s.addr,
                        settings: host.player_settings(s.id)?,
                        net: host.net_settings(s.id)?,
                    },
                })
            })
            .collect();
        members.extend(
            host.player_ids()
                .filter(|&id| host.net_settings(id).is_none())
                .map(|id| Member {
                    id: id.0,
                    kind: MemberKind::Bot,
                }),
        );
        members.sort_by_key(|m| m.id);
        Checkpoint {
            v: VERSION,
            max_record_time_ms: host.config().max_record_time_ms,
            members,
        }
    }

    /// The JSON.
    pub(crate) fn encode(&self) -> Vec<u8> {
        // Plain data: serializing cannot fail.
        serde_json::to_vec(self).unwrap_or_default()
    }

    /// A checkpoint from its JSON.
    ///
    /// # Errors
    /// Why it does not parse, or another version.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Checkpoint, String> {
        let c: Checkpoint = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
        if c.v != VERSION {
            return Err(format!(
                "checkpoint version {} (this relay reads {VERSION})",
                c.v
            ));
        }
        Ok(c)
    }

    /// Puts the members into `host` (a new, empty room whose
    /// `max_record_time_ms` is this checkpoint's) at `now`, each with its
    /// id, and returns the seats made (in member order). Ids of players who
    /// had left are spent on the way (ids only grow); a member the room
    /// has no place for (a smaller `--max-room-players`) is left out.
    pub(crate) fn restore(&self, host: &mut RoomHost, now: SimTime) -> Vec<SeatState> {
        let mut seats = Vec::new();
        for m in &self.members {
            let id = loop {
                let made = match m.kind {
                    MemberKind::Bot => host.add_bot(now),
                    MemberKind::Player { .. } => host.add_player(now),
                };
                match made {
                    Ok(id) if id.0 < m.id => {
                        host.remove_player(id);
                    }
                    Ok(id) => break Some(id),
                    Err(_) => break None,
                }
            };
            let (
                Some(id),
                MemberKind::Player {
                    token,
                    addr,
                    settings,
                    net,
                },
            ) = (id, &m.kind)
            else {
                continue;
            };
            use sim::protocol::ClientMsg;
            use sim::room::RoomClientMsg;
            // In range when they were applied on the first relay.
            let _ = host.receive_msg(
                now,
                id,
                0,
                ClientMsg::Room(RoomClientMsg::SetPlayerSettings(*settings)),
            );
            let _ = host.receive_msg(now, id, 0, ClientMsg::SetNetSettings(*net));
            seats.push(SeatState {
                id,
                token: Some(*token),
                addr: *addr,
            });
        }
        seats
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::protocol::{ClientMsg, ResumeToken};
    use sim::room::{RoomClientMsg, RoomConfig};

    #[test]
    fn a_room_restored_from_its_checkpoint_has_the_same_ids_seats_bots_and_settings() {
        let now = SimTime::ZERO;
        let mut host = RoomHost::new(RoomConfig::default(), 1, now).unwrap();
        let p1 = host.add_player(now).unwrap();
        let gone = host.add_player(now).unwrap();
        let bot = host.add_bot(now).unwrap();
        let p4 = host.add_player(now).unwrap();
        host.remove_player(gone);
        let settings = PlayerSettings {
            rewind: !PlayerSettings::default().rewind,
            ..PlayerSettings::default()
        };
        host.receive_msg(
            now,
            p4,
            0,
            ClientMsg::Room(RoomClientMsg::SetPlayerSettings(settings)),
        )
        .unwrap();
        let net = NetSettings::symmetric(180, 5, 2);
        host.receive_msg(now, p1, 0, ClientMsg::SetNetSettings(net))
            .unwrap();
        host.receive_msg(
            now,
            p1,
            0,
            ClientMsg::Room(RoomClientMsg::SetMaxRecordTime { ms: 700 }),
        )
        .unwrap();
        let seat = |id, t: u8, last: u8| SeatState {
            id,
            token: Some(TokenHash::of(&ResumeToken([t; 16]))),
            addr: IpAddr::from([198, 51, 100, last]),
        };
        let seats = [seat(p1, 1, 1), seat(p4, 4, 4)];
        let cp = Checkpoint::of(&host, seats.iter());
        let back = Checkpoint::decode(&cp.encode()).unwrap();
        assert_eq!(back, cp);
        assert_eq!(
            cp.members.iter().map(|m| m.id).collect::<Vec<_>>(),
            [1, 3, 4]
        );

        let config = RoomConfig {
            max_record_time_ms: back.max_record_time_ms,
            ..RoomConfig::default()
        };
        let mut again = RoomHost::new(config, 99, SimTime::from_millis(5)).unwrap();
        let made = back.restore(&mut again, SimTime::from_millis(5));
        assert_eq!(made.iter().map(|s| s.id).collect::<Vec<_>>(), [p1, p4]);
        assert_eq!(again.player_ids().collect::<Vec<_>>(), [p1, bot, p4]);
        assert_eq!(again.bot_count(), 1);
        assert_eq!(again.player_settings(p4), Some(settings));
        assert_eq!(again.net_settings(p1), Some(net));
        assert_eq!(again.config().max_record_time_ms, 700);
        assert_eq!(made[1].token, seats[1].token);
        assert_eq!(made[1].addr, seats[1].addr);
        assert!(Checkpoint::decode(br#"{"v":2,"max_record_time_ms":1,"members":[]}"#).is_err());
    }
}
