//! The client's side of resuming a relay session after its socket drops
//! ([`ResumeTicket`]): the token and grace period the relay sent
//! ([`ServerMsg::SessionToken`]), the Resume frame for a new socket, and
//! whether the next greeting (or refusal) answers that Resume. One type for
//! the single-player endpoint and a room's.
//!
//! [`ServerMsg::SessionToken`]: crate::protocol::ServerMsg::SessionToken

use crate::net::codec;
use crate::protocol::{ClientMsg, ResumeToken};
use std::time::Duration;

/// See the module docs.
#[derive(Debug, Clone, Copy, Default)]
pub struct ResumeTicket {
    /// The relay's token and its grace period, ms, once sent.
    held: Option<(ResumeToken, u32)>,
    /// A Resume was sent and not yet answered.
    resuming: bool,
}

impl ResumeTicket {
    /// The relay sent `token`, kept for `grace_ms` after a drop.
    pub fn offered(&mut self, token: ResumeToken, grace_ms: u32) {
        self.held = Some((token, grace_ms));
    }

    /// The Resume frame for a new connection, if a token was sent; the
    /// next greeting or error answers it.
    pub fn frame(&mut self) -> Option<Vec<u8>> {
        let (token, _) = self.held?;
        self.resuming = true;
        Some(codec::encode(&ClientMsg::Resume { token }))
    }

    /// How long the relay keeps the session after its socket drops, if it
    /// said so.
    pub fn grace(&self) -> Option<Duration> {
        self.held
            .map(|(_, ms)| Duration::from_millis(u64::from(ms)))
    }

    /// A greeting arrived: `true` if it answers a Resume (the session or
    /// seat was taken back).
    pub fn greeted(&mut self) -> bool {
        std::mem::take(&mut self.resuming)
    }

    /// An error arrived: `true` if it refuses a Resume, and the token is
    /// then forgotten (the relay no longer holds the session).
    pub fn refused(&mut self) -> bool {
        let refused = std::mem::take(&mut self.resuming);
        if refused {
            self.held = None;
        }
        refused
    }
}
