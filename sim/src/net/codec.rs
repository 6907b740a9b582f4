//! Framing: one message per binary WebSocket frame,
//! `[PROTOCOL_VERSION][postcard bytes]`, at most [`MAX_FRAME_LEN`] bytes.
//! Decoding never panics; every failure is a [`DecodeError`] with a reason.

use serde::de::DeserializeOwned;
use serde::Serialize;
use thiserror::Error;

/// Version byte at the start of every frame. Bump on any wire change.
pub const PROTOCOL_VERSION: u8 = 5;

/// Largest frame accepted or produced, bytes. A ServerMove is ~20 bytes and
/// an observer snapshot under 600; anything bigger is rejected *before*
/// decoding.
pub const MAX_FRAME_LEN: usize = 2048;

/// Why a frame could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// A zero-length frame.
    #[error("empty frame")]
    Empty,
    /// Longer than [`MAX_FRAME_LEN`].
    #[error("frame of {len} bytes exceeds the {max}-byte limit")]
    TooLarge {
        /// Frame length.
        len: usize,
        /// The limit.
        max: usize,
    },
    /// The version byte is not [`PROTOCOL_VERSION`].
    #[error("protocol version {got} is not supported (expected {expected})")]
    UnsupportedVersion {
        /// Version received.
        got: u8,
        /// Version spoken here.
        expected: u8,
    },
    /// postcard rejected the body (truncated, unknown variant, bad varint…).
    #[error("malformed message: {0}")]
    Malformed(String),
    /// The message decoded but bytes were left over.
    #[error("{0} trailing bytes after the message")]
    TrailingBytes(usize),
}

/// Encodes `msg` into a frame.
///
/// # Panics
/// Never for this crate's message types: postcard serialization of them
/// into a `Vec` cannot fail. Debug builds assert the frame fits
/// [`MAX_FRAME_LEN`].
pub fn encode<T: Serialize>(msg: &T) -> Vec<u8> {
    let out =
        postcard::to_extend(msg, vec![PROTOCOL_VERSION]).unwrap_or_else(|_| vec![PROTOCOL_VERSION]);
    debug_assert!(out.len() <= MAX_FRAME_LEN, "frame of {} bytes", out.len());
    out
}

/// Decodes one frame.
///
/// # Errors
/// [`DecodeError::Empty`], [`DecodeError::TooLarge`] (checked first, before
/// any parsing), [`DecodeError::UnsupportedVersion`],
/// [`DecodeError::Malformed`] or [`DecodeError::TrailingBytes`].
pub fn decode<T: DeserializeOwned>(frame: &[u8]) -> Result<T, DecodeError> {
    if frame.len() > MAX_FRAME_LEN {
        return Err(DecodeError::TooLarge {
            len: frame.len(),
            max: MAX_FRAME_LEN,
        });
    }
    let (&version, body) = frame.split_first().ok_or(DecodeError::Empty)?;
    if version != PROTOCOL_VERSION {
        return Err(DecodeError::UnsupportedVersion {
            got: version,
            expected: PROTOCOL_VERSION,
        });
    }
    let (msg, rest) =
        postcard::take_from_bytes(body).map_err(|e| DecodeError::Malformed(e.to_string()))?;
    if !rest.is_empty() {
        return Err(DecodeError::TrailingBytes(rest.len()));
    }
    Ok(msg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::movement::MoveInput;
    use crate::net::protocol::*;
    use crate::time::TimeStamp;
    use crate::Vec2;
    use proptest::prelude::*;

    fn typical_move() -> ClientMsg {
        ClientMsg::ServerMove(ServerMove::new(
            5,
            NetworkMove {
                time_stamp: TimeStamp(61_234),
                input: MoveInput::from_direction(Vec2::new(0.6, -0.8), false),
            },
            NetPosition::quantize(Vec2::new(1234.56, 789.01)),
        ))
    }

    #[test]
    fn round_trip_and_size_of_a_typical_server_move() {
        let frame = encode(&typical_move());
        assert_eq!(frame[0], PROTOCOL_VERSION);
        assert_eq!(decode::<ClientMsg>(&frame).unwrap(), typical_move());
        // version 1 + variant 1 + header 1 + ts 3 + accel 2+2 + location
        // 3+3 (issue #6's budget: ≤ 16).
        assert_eq!(frame.len(), 16);
    }

    #[test]
    fn bad_frames_are_errors_with_reasons() {
        assert_eq!(decode::<ClientMsg>(&[]), Err(DecodeError::Empty));
        assert_eq!(
            decode::<ClientMsg>(&[9, 0]),
            Err(DecodeError::UnsupportedVersion {
                got: 9,
                expected: 5
            })
        );
        assert!(matches!(
            decode::<ClientMsg>(&[PROTOCOL_VERSION, 200]),
            Err(DecodeError::Malformed(_))
        ));
        let mut frame = encode(&ClientMsg::Ping { id: 7 });
        frame.push(0);
        assert_eq!(
            decode::<ClientMsg>(&frame),
            Err(DecodeError::TrailingBytes(1))
        );
        let big = vec![PROTOCOL_VERSION; MAX_FRAME_LEN + 1];
        assert_eq!(
            decode::<ClientMsg>(&big),
            Err(DecodeError::TooLarge {
                len: 2049,
                max: 2048
            })
        );
    }

    proptest! {
        /// Invariant: any byte string decodes to a message or an error —
        /// never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode::<ClientMsg>(&bytes);
            let _ = decode::<ServerMsg>(&bytes);
        }
    }
}
