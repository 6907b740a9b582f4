//! The written forms of a [`Scenario`]: the compact bytes the relay
//! stores and a self-contained link carries in its URL fragment, and the
//! JSON of `GET /api/scenarios/{id}` and the golden suite's files.
//!
//! Compact layout: one format byte ([`FORMAT`]), then the scenario as
//! postcard (varints: a frame of constant input costs ~6 bytes)
//! compressed with raw DEFLATE (miniz_oxide, level 9; runs of alike
//! frames shrink to almost nothing). Decoding inflates with a limit
//! ([`MAX_INFLATED_BYTES`]) so a small hostile body cannot expand without
//! bound, rejects trailing bytes, reads the body with the decoder of the
//! version it names and upgrades it to this build's ([`super::migrate`]),
//! and validates the result ([`Scenario::validate`]). Writing is always
//! in this build's version ([`super::SCENARIO_VERSION`]).

pub use super::error::DecodeError;
pub use super::migrate::Decoded;
use super::migrate::{self, Json, Postcard};
use super::Scenario;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

/// First byte of the encoding; bump when the layout (not the schema)
/// changes.
pub const FORMAT: u8 = 1;
/// Largest encoded scenario accepted, bytes (a 10-minute 240 Hz recording
/// of busy input stays well under this).
pub const MAX_ENCODED_BYTES: usize = 512 * 1024;
/// Largest inflated postcard body accepted, bytes: 144 000 frames of at
/// most 12 bytes plus changes and text.
pub const MAX_INFLATED_BYTES: usize = 4 * 1024 * 1024;

/// Encodes a scenario (no validation: encode what you built).
pub fn encode(scenario: &Scenario) -> Vec<u8> {
    // Serializing plain data into a Vec cannot fail.
    let body = postcard::to_allocvec(scenario).unwrap_or_default();
    let mut out = vec![FORMAT];
    out.extend(miniz_oxide::deflate::compress_to_vec(&body, 9));
    out
}

/// Decodes and validates a scenario of any version, upgraded to this
/// build's ([`open`] also says which version it was saved as).
///
/// # Errors
/// [`DecodeError`] saying what is wrong; nothing is partially returned.
pub fn decode(bytes: &[u8]) -> Result<Scenario, DecodeError> {
    open(bytes).map(|d| d.scenario)
}

/// Decodes and validates a scenario of any version: the scenario upgraded
/// to this build's version, and the version it was saved as.
///
/// # Errors
/// [`DecodeError`] saying what is wrong; nothing is partially returned.
pub fn open(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    let (&format, deflated) = bytes.split_first().ok_or(DecodeError::Empty)?;
    if bytes.len() > MAX_ENCODED_BYTES {
        return Err(DecodeError::TooLarge(bytes.len()));
    }
    if format != FORMAT {
        return Err(DecodeError::Format(format));
    }
    let body = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_INFLATED_BYTES)
        .map_err(|_| DecodeError::Inflate)?;
    migrate::read(Postcard(&body))
}

/// Decodes and validates a scenario written as JSON (any version), as
/// [`open`] does the compact bytes.
///
/// # Errors
/// [`DecodeError::Json`] for JSON that is not a scenario of the version
/// it names, or any error of [`open`] after the body.
pub fn open_json(json: &[u8]) -> Result<Decoded, DecodeError> {
    migrate::read(Json(json))
}

/// Decodes a scenario file: JSON when it starts with `{` (as `GET
/// /api/scenarios/{id}` serves it), else the compact bytes.
///
/// # Errors
/// Those of [`open_json`] or [`open`].
pub fn open_file(bytes: &[u8]) -> Result<Decoded, DecodeError> {
    if bytes.first() == Some(&b'{') {
        open_json(bytes)
    } else {
        open(bytes)
    }
}

/// The scenario as URL-fragment text (base64url of [`encode`], no
/// padding): `…/#s=<this>` plays with no server at all.
pub fn to_fragment(scenario: &Scenario) -> String {
    URL_SAFE_NO_PAD.encode(encode(scenario))
}

/// Decodes [`to_fragment`]'s text (of any version, upgraded).
///
/// # Errors
/// [`DecodeError::Base64`], or any error of [`open`].
pub fn from_fragment(text: &str) -> Result<Scenario, DecodeError> {
    open_fragment(text).map(|d| d.scenario)
}

/// Decodes [`to_fragment`]'s text and says which version it was saved as.
///
/// # Errors
/// [`DecodeError::Base64`], or any error of [`open`].
pub fn open_fragment(text: &str) -> Result<Decoded, DecodeError> {
    // 4 base64 characters per 3 bytes: refuse before decoding anything big.
    if text.len() > MAX_ENCODED_BYTES / 3 * 4 + 4 {
        return Err(DecodeError::TooLarge(text.len() / 4 * 3));
    }
    let bytes = URL_SAFE_NO_PAD
        .decode(text.trim())
        .map_err(|_| DecodeError::Base64)?;
    open(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::foundation::math::Vec2;
    use crate::protocol::Setup;
    use crate::scenario::{FrameInput, SCENARIO_VERSION};

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
    fn a_newer_version_is_named_with_the_versions_this_build_reads() {
        let mut s = sample();
        s.version = SCENARIO_VERSION + 1;
        let newer = format!(
            "this scenario is version {}, made by a newer version of the playground; this \
             build reads versions 1 to {SCENARIO_VERSION}: open it with the relay or page that \
             made it",
            SCENARIO_VERSION + 1
        );
        assert_eq!(decode(&encode(&s)).unwrap_err().to_string(), newer);
        let json = serde_json::to_vec(&s).unwrap();
        assert_eq!(open_json(&json).unwrap_err().to_string(), newer);
        s.version = 0;
        assert_eq!(decode(&encode(&s)), Err(DecodeError::Unknown(0)));
    }

    #[test]
    fn json_round_trips_and_says_its_version() {
        let s = sample();
        let d = open_file(&serde_json::to_vec(&s).unwrap()).unwrap();
        assert_eq!((d.scenario, d.saved_version), (s.clone(), SCENARIO_VERSION));
        assert_eq!(open_file(&encode(&s)).unwrap().scenario, s);
        assert_eq!(
            open_json(b"{\"name\": \"x\"}").unwrap_err().to_string(),
            "scenario JSON: missing field `version` at line 1 column 13"
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
            "invalid scenario: setup: net: downlink.loss_tenth_percent = 900 is outside 0–500"
        );
    }
}
