//! Framing: one message per binary WebSocket frame,
//! `[version][postcard bytes]`, at most [`MAX_FRAME_LEN`] bytes, for any
//! message type that names its protocol's version byte ([`Versioned`]; the
//! playground's is `crate::protocol::PROTOCOL_VERSION`). Decoding never
//! panics; every failure is a [`DecodeError`] with a reason.

use serde::de::DeserializeOwned;
use serde::Serialize;
use thiserror::Error;

/// A message type this codec frames: the version byte of the protocol it
/// belongs to, written first in every frame and checked first on decode.
pub trait Versioned {
    /// The version byte. Bump it on any change of the type's wire form.
    const VERSION: u8;
}

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
    /// The version byte is not the message type's [`Versioned::VERSION`].
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
pub fn encode<T: Versioned + Serialize>(msg: &T) -> Vec<u8> {
    let out = postcard::to_extend(msg, vec![T::VERSION]).unwrap_or_else(|_| vec![T::VERSION]);
    debug_assert!(out.len() <= MAX_FRAME_LEN, "frame of {} bytes", out.len());
    out
}

/// Decodes one frame.
///
/// # Errors
/// [`DecodeError::Empty`], [`DecodeError::TooLarge`] (checked first, before
/// any parsing), [`DecodeError::UnsupportedVersion`],
/// [`DecodeError::Malformed`] or [`DecodeError::TrailingBytes`].
pub fn decode<T: Versioned + DeserializeOwned>(frame: &[u8]) -> Result<T, DecodeError> {
    if frame.len() > MAX_FRAME_LEN {
        return Err(DecodeError::TooLarge {
            len: frame.len(),
            max: MAX_FRAME_LEN,
        });
    }
    let (&version, body) = frame.split_first().ok_or(DecodeError::Empty)?;
    if version != T::VERSION {
        return Err(DecodeError::UnsupportedVersion {
            got: version,
            expected: T::VERSION,
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
    use serde::Deserialize;

    /// A message of a protocol at version 9.
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Probe(u32);

    impl Versioned for Probe {
        const VERSION: u8 = 9;
    }

    #[test]
    fn the_version_byte_is_the_message_types() {
        let frame = encode(&Probe(300));
        assert_eq!(frame, [9, 0xac, 0x02]);
        assert_eq!(decode::<Probe>(&frame), Ok(Probe(300)));
        assert_eq!(
            decode::<Probe>(&[5, 1]),
            Err(DecodeError::UnsupportedVersion {
                got: 5,
                expected: 9
            })
        );
    }
}
