//! The compact bytes of a [`Scenario`]: what the relay stores and what a
//! self-contained link carries in its URL fragment.
//!
//! Layout: one format byte ([`FORMAT`]), then the scenario as postcard
//! (varints: a frame of constant input costs ~6 bytes) compressed with raw
//! DEFLATE (miniz_oxide, level 9; runs of alike frames shrink to almost
//! nothing). Decoding inflates with a limit ([`MAX_INFLATED_BYTES`]) so a
//! small hostile body cannot expand without bound, rejects trailing bytes,
//! and validates the result ([`Scenario::validate`]).

use super::{Scenario, ScenarioError, SCENARIO_VERSION};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use thiserror::Error;

/// First byte of the encoding; bump when the layout (not the schema)
/// changes.
pub const FORMAT: u8 = 1;
/// Largest encoded scenario accepted, bytes (a 10-minute 240 Hz recording
/// of busy input stays well under this).
pub const MAX_ENCODED_BYTES: usize = 512 * 1024;
/// Largest inflated postcard body accepted, bytes: 144 000 frames of at
/// most 12 bytes plus changes and text.
pub const MAX_INFLATED_BYTES: usize = 4 * 1024 * 1024;

/// Why bytes or a link did not give a scenario.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// No bytes at all.
    #[error("empty scenario")]
    Empty,
    /// Longer than [`MAX_ENCODED_BYTES`].
    #[error("scenario is {0} bytes, over the limit of 524288")]
    TooLarge(usize),
    /// The format byte is not [`FORMAT`].
    #[error("unknown scenario format {0} (this build reads format 1)")]
    Format(u8),
    /// The DEFLATE stream is broken or inflates past the limit.
    #[error("the scenario does not decompress: truncated or corrupt (or over 4 MiB inflated)")]
    Inflate,
    /// The inflated body is not a scenario of this schema.
    #[error(
        "the scenario does not decode (made by another version of the playground, or corrupt): {0}"
    )]
    Body(String),
    /// Bytes after the scenario.
    #[error("{0} unexpected bytes after the scenario")]
    Trailing(usize),
    /// Decoded, but a value is out of range.
    #[error("invalid scenario: {0}")]
    Invalid(#[from] ScenarioError),
    /// The link fragment is not base64url.
    #[error("the link's scenario is not valid base64url")]
    Base64,
}

/// Encodes a scenario (no validation: encode what you built).
pub fn encode(scenario: &Scenario) -> Vec<u8> {
    // Serializing plain data into a Vec cannot fail.
    let body = postcard::to_allocvec(scenario).unwrap_or_default();
    let mut out = vec![FORMAT];
    out.extend(miniz_oxide::deflate::compress_to_vec(&body, 9));
    out
}

/// Decodes and validates a scenario.
///
/// # Errors
/// [`DecodeError`] saying what is wrong; nothing is partially returned.
pub fn decode(bytes: &[u8]) -> Result<Scenario, DecodeError> {
    let (&format, deflated) = bytes.split_first().ok_or(DecodeError::Empty)?;
    if bytes.len() > MAX_ENCODED_BYTES {
        return Err(DecodeError::TooLarge(bytes.len()));
    }
    if format != FORMAT {
        return Err(DecodeError::Format(format));
    }
    let body = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_INFLATED_BYTES)
        .map_err(|_| DecodeError::Inflate)?;
    // The version leads the body: another schema is named, not misread.
    if let Ok((found, _)) = postcard::take_from_bytes::<u16>(&body) {
        if found != SCENARIO_VERSION {
            return Err(ScenarioError::Version {
                found,
                expected: SCENARIO_VERSION,
            }
            .into());
        }
    }
    let (scenario, rest): (Scenario, _) =
        postcard::take_from_bytes(&body).map_err(|e| DecodeError::Body(e.to_string()))?;
    if !rest.is_empty() {
        return Err(DecodeError::Trailing(rest.len()));
    }
    scenario.validate()?;
    Ok(scenario)
}

/// The scenario as URL-fragment text (base64url of [`encode`], no
/// padding): `…/#s=<this>` plays with no server at all.
pub fn to_fragment(scenario: &Scenario) -> String {
    URL_SAFE_NO_PAD.encode(encode(scenario))
}

/// Decodes [`to_fragment`]'s text.
///
/// # Errors
/// [`DecodeError::Base64`], or any error of [`decode`].
pub fn from_fragment(text: &str) -> Result<Scenario, DecodeError> {
    // 4 base64 characters per 3 bytes: refuse before decoding anything big.
    if text.len() > MAX_ENCODED_BYTES / 3 * 4 + 4 {
        return Err(DecodeError::TooLarge(text.len() / 4 * 3));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim())
        .map_err(|_| DecodeError::Base64)?;
    decode(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{FrameInput, Setup};
    use crate::Vec2;

    fn sample() -> Scenario {
        let mut s = Scenario::new("round trip", 7, Setup::default());
        s.frames = (0..600)
            .map(|i| {
                let y = (i / 100) as f32 * 0.1;
                let dir = Vec2::new((1.0 - y * y).sqrt(), y);
                FrameInput::quantize(1.0 / 60.0, dir, i % 97 == 0, false)
            })
            .collect();
        s
    }

    #[test]
    fn a_scenario_of_another_version_is_named_not_misread() {
        let mut s = Scenario::new("old", 1, crate::scenario::Setup::default());
        s.version = 1;
        assert_eq!(
            decode(&encode(&s)).unwrap_err().to_string(),
            "invalid scenario: scenario version 1 is not supported (this build reads version 2)"
        );
    }

    #[test]
    fn bytes_and_fragment_round_trip() {
        let s = sample();
        assert_eq!(decode(&encode(&s)), Ok(s.clone()));
        assert_eq!(from_fragment(&to_fragment(&s)), Ok(s));
    }

    #[test]
    fn bad_bytes_get_a_reason() {
        let good = encode(&sample());
        assert_eq!(decode(&[]), Err(DecodeError::Empty));
        let mut wrong = good.clone();
        wrong[0] = 9;
        assert_eq!(decode(&wrong), Err(DecodeError::Format(9)));
        assert_eq!(decode(&[1, 0xff, 0xff]), Err(DecodeError::Inflate));
        assert_eq!(
            decode(&vec![1; MAX_ENCODED_BYTES + 1]),
            Err(DecodeError::TooLarge(MAX_ENCODED_BYTES + 1))
        );
        assert_eq!(from_fragment("not base64!"), Err(DecodeError::Base64));
        // Trailing bytes after a valid body.
        let mut body = postcard::to_allocvec(&sample()).unwrap();
        body.extend([0, 0]);
        let mut bytes = vec![FORMAT];
        bytes.extend(miniz_oxide::deflate::compress_to_vec(&body, 9));
        assert_eq!(decode(&bytes), Err(DecodeError::Trailing(2)));
    }

    #[test]
    fn a_deflate_bomb_stops_at_the_limit() {
        // 8 MiB of zeros deflate to ~8 KiB; inflating must stop at 4 MiB.
        let mut bytes = vec![FORMAT];
        bytes.extend(miniz_oxide::deflate::compress_to_vec(&vec![0; 8 << 20], 9));
        assert!(bytes.len() < MAX_ENCODED_BYTES);
        assert_eq!(decode(&bytes), Err(DecodeError::Inflate));
    }

    #[test]
    fn invalid_values_are_rejected_after_decoding() {
        let mut s = sample();
        s.setup.net.downlink.loss_tenth_percent = 900;
        assert_eq!(
            decode(&encode(&s)).unwrap_err().to_string(),
            "invalid scenario: setup: net: downlink.loss_tenth_percent = 900 is outside 0..=500"
        );
    }
}
