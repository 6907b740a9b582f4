//! Who is in the room: remote players and bots coming and going, spawn
//! points, the roster everyone is sent, and the refusal of one too many.

use super::{wrap, RoomError, RoomHost};
use crate::cmc::server::{ServerCharacter, ServerConfig};
use crate::endpoints::room::link::PlayerLink;
use crate::endpoints::room::player::{Driver, Player, ShotCounters};
use crate::endpoints::room::recording::RecordedEvent;
use crate::foundation::bot::{Bot, BotCharacter};
use crate::foundation::math::Vec2;
use crate::foundation::time::SimTime;
use crate::net::codec;
use crate::room::config::PlayerSettings;
use crate::room::replication::PlayerId;
use crate::room::weapon::WeaponState;
use crate::room::wire::{RoomServerMsg, RosterEntry};

/// Vertical spacing of the spawn points, cm: a character's diameter plus
/// a little, so newcomers do not stand in one another.
const SPAWN_SPACING: f32 = 90.0;

impl RoomHost {
    /// Takes a new remote player in at `now`; their first frame should be
    /// [`crate::room::RoomClientMsg::Join`] (in a
    /// [`crate::protocol::ClientMsg::Room`]).
    ///
    /// # Errors
    /// [`RoomError::Full`] if the room holds its most players: send
    /// [`RoomHost::refusal_frame`] and close.
    pub fn add_player(&mut self, now: SimTime) -> Result<PlayerId, RoomError> {
        let (id, spawn) = self.next_slot()?;
        let seed = self.player_seed(id);
        let character =
            ServerCharacter::with_seed(self.params, ServerConfig::default(), spawn, seed);
        self.push(
            id,
            Driver::Remote {
                character: Box::new(character),
                link: Box::new(PlayerLink::new(seed, now)),
            },
        );
        self.note(|| RecordedEvent::Join {
            at: now,
            id,
            link_seed: seed,
        });
        Ok(id)
    }

    /// The seed player `id`'s link conditioners and forced-adjustment roll
    /// draw from.
    pub(super) fn player_seed(&self, id: PlayerId) -> u64 {
        self.seed ^ u64::from(id.0).wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// Puts a server-driven bot in at `now`, on the arena tour.
    ///
    /// # Errors
    /// [`RoomError::Full`] if the room holds its most players.
    pub fn add_bot(&mut self, now: SimTime) -> Result<PlayerId, RoomError> {
        let phase = 3 * self.next_id as usize;
        let (_, spawn) = self.next_slot()?;
        self.add_bot_with(now, Bot::new().starting_at(phase), spawn)
    }

    /// Puts a bot driven by `bot` in at `now`, standing at `position` (cm).
    ///
    /// # Errors
    /// [`RoomError::Full`] if the room holds its most players.
    pub fn add_bot_with(
        &mut self,
        now: SimTime,
        bot: Bot,
        position: Vec2,
    ) -> Result<PlayerId, RoomError> {
        let (id, _) = self.next_slot()?;
        self.note(|| RecordedEvent::AddBot {
            at: now,
            id,
            bot: bot.clone(),
            position,
        });
        self.push(id, Driver::Bot(BotCharacter::new(bot, position, now)));
        Ok(id)
    }

    /// Respawns bot `id` at `position` (cm) at `now`, driven by `bot`
    /// from there: a teleport, which its frame history marks and never
    /// interpolates across ([`crate::room::history`]). Returns `false` if
    /// `id` is not a bot of the room.
    pub fn respawn_bot(&mut self, now: SimTime, id: PlayerId, bot: Bot, position: Vec2) -> bool {
        let Ok(i) = self.index(id) else {
            return false;
        };
        let p = &mut self.players[i];
        if !matches!(p.driver, Driver::Bot(_)) {
            return false;
        }
        self.note(|| RecordedEvent::RespawnBot {
            at: now,
            id,
            bot: bot.clone(),
            position,
        });
        let p = &mut self.players[i];
        p.driver = Driver::Bot(BotCharacter::new(bot, position, now));
        p.teleported = true;
        true
    }

    fn next_slot(&self) -> Result<(PlayerId, Vec2), RoomError> {
        if self.players.len() >= self.config.max_players {
            return Err(RoomError::Full {
                max: self.config.max_players,
            });
        }
        // 0, +1, −1, +2, −2, +3, −3 spacings from the spawn, then again.
        let k = (self.next_id - 1) % 7;
        let step = (k.div_ceil(2)) as f32 * if k % 2 == 1 { 1.0 } else { -1.0 };
        Ok((
            PlayerId(self.next_id),
            self.world.spawn + Vec2::new(0.0, step * SPAWN_SPACING),
        ))
    }

    fn push(&mut self, id: PlayerId, driver: Driver) {
        self.next_id += 1;
        self.players.push(Player {
            id,
            driver,
            settings: PlayerSettings::default(),
            history: Default::default(),
            teleported: false,
            actions: Default::default(),
            answers: Default::default(),
            weapon: WeaponState::new(&self.config.weapon),
            shots: ShotCounters::default(),
        });
        self.send_roster();
    }

    /// Takes player `id` (remote or bot) out; the others stop receiving
    /// them with their next net update. Returns `false` if absent.
    pub fn remove_player(&mut self, id: PlayerId) -> bool {
        let Ok(i) = self.index(id) else {
            return false;
        };
        self.players.remove(i);
        self.note(|| RecordedEvent::Leave { id });
        self.send_roster();
        true
    }

    /// Sends everyone the roster and the room-wide `MaxRecordTime`.
    pub(super) fn send_roster(&mut self) {
        let roster = wrap(RoomServerMsg::Roster {
            players: self
                .players
                .iter()
                .map(|p| RosterEntry {
                    id: p.id,
                    bot: p.link().is_none(),
                })
                .collect(),
            max_record_time_ms: self.config.max_record_time_ms,
        });
        for link in self.players.iter_mut().filter_map(Player::link_mut) {
            link.conn.send_now(&roster);
        }
    }

    /// The frame that tells a refused connection why.
    pub fn refusal_frame(error: &RoomError) -> Vec<u8> {
        codec::encode(&wrap(RoomServerMsg::Refused {
            reason: error.to_string(),
        }))
    }
}
