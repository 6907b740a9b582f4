//! Saved scenarios of every version, read and upgraded to this build's.
//!
//! A link pasted into a bug report must open after the format changes, as
//! a file format keeps reading its old files. So every version's layout
//! keeps its own decoder here, one module each, and upgrades to the next
//! version with the value that reproduces the old behaviour for every
//! setting added since. Stored scenarios (SQLite, PostgreSQL) and links
//! stay as they were saved; the upgrade happens on every read, in the
//! relay's API, the page and the `scenario` CLI alike.
//!
//! | version | saved by | layout | upgrade to the next |
//! |---|---|---|---|
//! | 1 (`v1a.rs`) | e6391dd … 5a983ea | one RTT / jitter / loss for both directions | each direction gets half the RTT, the jitter and the loss (`NetSettings::symmetric`) |
//! | 1 (`v1b.rs`) | cd740f1 … db05a66 | per-direction links, lag spikes | model CMC, clock speed 1×, fire never pressed |
//! | 2 (`v2.rs`) | f7d209b … until version 3 (the frozen file: 0182172) | the model, fire, clock speed, what-if deliveries | no checkpoints (a difference is then found without its time) |
//! | 3 (`v3.rs`) | until version 4 (the frozen file: `scenarios/frozen/v3.bin`) | checkpoints in the outcome | prediction and reconciliation on, input delay 0 |
//! | 4 (`v4.rs`) | until version 5 (the frozen file: `scenarios/frozen/v4.bin`) | the client's prediction and reconciliation switches, the rollback input delay | datagrams (`LinkTransport::Datagram`) |
//! | 5 | this build | the link's transport (`Setup::transport`, `Setting::Transport`): datagrams or reliable-ordered | — |
//!
//! Version 1 had two layouts under one number (the net-model merge
//! changed `NetSettings` without a bump): a version-1 body is read as the
//! later layout and, when that fails to read or to validate, as the
//! earlier one. Misreading one as the other would need the body to end
//! exactly where the wrong layout ends and every value to be in range.
//!
//! A version newer than this build's is refused naming both versions
//! ([`DecodeError::Newer`]); version 0 was never written
//! ([`DecodeError::Unknown`]).
//!
//! # Adding version N + 1
//! 1. Copy the types whose layout changes (and every type holding one,
//!    up to [`Scenario`]) from the current modules into a new `vN.rs`
//!    here, as plain serde data, with `use super::current as next;` for
//!    the rest, and `impl Layout` with the upgrade: each new setting gets
//!    the value that reproduces version N's behaviour.
//! 2. In the previous old module, `use super::current as next` becomes
//!    `use super::vN as next`; re-export from `vN` what it takes.
//! 3. Change the types and bump [`SCENARIO_VERSION`]; add the arm
//!    `N => upgrade::<vN::Scenario>(form, N)` in this module's `read`.
//! 4. Give `sim/examples/freeze.rs`'s run the new setting (changed once,
//!    from the value of step 1), then freeze a file of version N + 1:
//!    `cargo run -p sim --example freeze -- scenarios/frozen` writes
//!    `vN+1.bin` and `.json`; add both to `scenarios/frozen/manifest.json`
//!    (`sha256sum`, the replay's trajectory hash and verdict). Frozen
//!    files are never edited.
//!
//! `sim/tests/frozen.rs` fails until all of this is done: a version
//! without a frozen file, a frozen file whose version no longer decodes,
//! or an edited one.

mod v1a;
mod v1b;
mod v2;
mod v3;
mod v4;

use super::error::DecodeError;
use super::{Scenario, SCENARIO_VERSION};
use serde::de::DeserializeOwned;
use serde::Deserialize;

/// The types this build's layout is made of: what the newest old module
/// upgrades to and takes unchanged.
mod current {
    pub(super) use crate::cmc::client_config::ClientConfig;
    pub(super) use crate::cmc::rules::ServerRules;
    pub(super) use crate::cmc::smoothing::SmoothingMode;
    pub(super) use crate::net::settings::{LagSpike, NetSettings};
    pub(super) use crate::net::trace::Direction;
    pub(super) use crate::net::transport::LinkTransport;
    pub(super) use crate::protocol::Model;
    pub(super) use crate::rollback::tick::{Tick, TickRate};
    pub(super) use crate::rollback::RollbackConfig;
    pub(super) use crate::scenario::{
        Arena, Change, FrameInput, Outcome, Scenario, Setting, Setup,
    };
}

/// A scenario read from storage or a link: upgraded to this build's
/// version, and the version it was saved as.
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The scenario, validated, in this build's layout.
    pub scenario: Scenario,
    /// The version it was saved as, `1..=SCENARIO_VERSION`.
    pub saved_version: u16,
}

/// One written form of a scenario. A type per form, not an enum: the page
/// reads only the compact bytes, and links no JSON decoder into its wasm.
pub(crate) trait Form: Copy {
    /// The version the scenario names.
    fn version(self) -> Result<u16, DecodeError>;
    /// The whole scenario as layout `L` of `version`.
    fn read<L: DeserializeOwned>(self, version: u16) -> Result<L, DecodeError>;
}

/// The inflated postcard body of the compact bytes.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Postcard<'a>(pub(crate) &'a [u8]);

/// JSON text.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Json<'a>(pub(crate) &'a [u8]);

/// The version field alone, to pick a decoder (JSON may hold it anywhere).
#[derive(Deserialize)]
struct VersionOnly {
    version: u16,
}

impl Form for Postcard<'_> {
    /// Postcard's first field.
    fn version(self) -> Result<u16, DecodeError> {
        postcard::take_from_bytes::<u16>(self.0)
            .map(|(v, _)| v)
            .map_err(|_| DecodeError::NoVersion)
    }

    fn read<L: DeserializeOwned>(self, version: u16) -> Result<L, DecodeError> {
        let (layout, rest) = postcard::take_from_bytes(self.0).map_err(|e| DecodeError::Body {
            version,
            reason: e.to_string(),
        })?;
        if !rest.is_empty() {
            return Err(DecodeError::Trailing(rest.len()));
        }
        Ok(layout)
    }
}

impl Form for Json<'_> {
    fn version(self) -> Result<u16, DecodeError> {
        serde_json::from_slice::<VersionOnly>(self.0)
            .map(|v| v.version)
            .map_err(|e| DecodeError::Json(e.to_string()))
    }

    fn read<L: DeserializeOwned>(self, _version: u16) -> Result<L, DecodeError> {
        serde_json::from_slice(self.0).map_err(|e| DecodeError::Json(e.to_string()))
    }
}

/// A saved layout of the schema, upgraded step by step to the current.
trait Layout: DeserializeOwned {
    /// This layout upgraded to the next, and on to this build's.
    fn into_current(self) -> Scenario;
}

impl Layout for Scenario {
    fn into_current(self) -> Scenario {
        self
    }
}

/// Reads `form` as layout `L`, upgrades and validates it.
fn upgrade<L: Layout>(form: impl Form, version: u16) -> Result<Scenario, DecodeError> {
    let scenario = form.read::<L>(version)?.into_current();
    scenario.validate()?;
    Ok(scenario)
}

/// Reads a scenario of any version this build knows, upgraded and
/// validated.
///
/// # Errors
/// [`DecodeError::NoVersion`], [`DecodeError::Unknown`] or
/// [`DecodeError::Newer`] for a version not read here, else what the
/// version's decoder or [`Scenario::validate`] found.
pub(crate) fn read(form: impl Form) -> Result<Decoded, DecodeError> {
    let version = form.version()?;
    let scenario = match version {
        1 => upgrade::<v1b::Scenario>(form, 1)
            .or_else(|later| upgrade::<v1a::Scenario>(form, 1).map_err(|_| later))?,
        2 => upgrade::<v2::Scenario>(form, 2)?,
        3 => upgrade::<v3::Scenario>(form, 3)?,
        4 => upgrade::<v4::Scenario>(form, 4)?,
        SCENARIO_VERSION => upgrade::<Scenario>(form, SCENARIO_VERSION)?,
        found if found > SCENARIO_VERSION => {
            return Err(DecodeError::Newer {
                found,
                newest: SCENARIO_VERSION,
            })
        }
        unknown => return Err(DecodeError::Unknown(unknown)),
    };
    Ok(Decoded {
        scenario,
        saved_version: version,
    })
}
