//! What was recorded or opened, and whether and where it was saved
//! ([`Recorder`]): what ▶ Replay and ⟲ Restart play, whether Save may
//! store it, and what Save does ([`Save`]: nothing, a refusal, the link
//! already stored under the same name and description, or the bytes to
//! send). Pure: tested natively.

use super::share;
use sim::scenario::{codec, ScenarioError};
use sim::Scenario;

/// See the module docs.
#[derive(Default)]
pub struct Recorder {
    /// The last recording, or the scenario a link opened: what ▶ Replay
    /// and ⟲ Restart play.
    pub recorded: Option<Scenario>,
    /// `recorded` was recorded in this page (a link's scenario is not
    /// saved again: its link is shown instead).
    saveable: bool,
    /// Name, description and id of the last save of `recorded`, so that
    /// pressing Save twice does not store it twice.
    saved: Option<(String, String, String)>,
    /// Name and description of the save in flight.
    saving: Option<(String, String)>,
}

/// What Save does with the recording.
#[derive(Debug, PartialEq)]
pub enum Save {
    /// Nothing: no recording, or a link's scenario (not ours to store).
    Nothing,
    /// The recording with this name and description is not valid.
    Invalid(ScenarioError),
    /// It was stored under this id with the same name and description:
    /// the same link.
    Already(String),
    /// Store these bytes (`POST /api/scenarios`); the reply goes to
    /// [`Recorder::saved`] or [`Recorder::failed`].
    Send(Vec<u8>),
}

impl Recorder {
    /// A scenario came from a link: not ours to save again.
    pub fn opened_link(&mut self) {
        self.saveable = false;
        self.saved = None;
    }

    /// `true` when there is a scenario to replay.
    pub fn can_replay(&self) -> bool {
        self.recorded.is_some()
    }

    /// `true` when the scenario held was recorded in this page.
    pub fn is_saveable(&self) -> bool {
        self.saveable
    }

    /// The self-contained `#s=` link of the recording.
    pub fn fragment_link(&self) -> String {
        self.recorded.as_ref().map_or_else(String::new, |s| {
            format!("{}/#s={}", share::origin(), codec::to_fragment(s))
        })
    }

    /// Keeps `scenario`, just recorded in this page (not saved yet).
    pub fn keep(&mut self, scenario: Scenario) {
        self.recorded = Some(scenario);
        self.saveable = true;
        self.saved = None;
    }

    /// Save pressed with the run bar's `name` and `description` (they
    /// become the recording's).
    pub fn save(&mut self, name: String, description: String) -> Save {
        if !self.saveable {
            return Save::Nothing;
        }
        let Some(s) = &mut self.recorded else {
            return Save::Nothing;
        };
        s.name = name;
        s.description = description;
        if let Err(e) = s.validate() {
            return Save::Invalid(e);
        }
        if let Some((name, description, id)) = &self.saved {
            if *name == s.name && *description == s.description {
                return Save::Already(id.clone());
            }
        }
        self.saving = Some((s.name.clone(), s.description.clone()));
        Save::Send(codec::encode(s))
    }

    /// The save in flight was stored under `id`.
    pub fn saved(&mut self, id: &str) {
        self.saved = self.saving.take().map(|(n, d)| (n, d, id.to_owned()));
    }

    /// A request failed: `true` if it was the save in flight (else it was
    /// a shared scenario's load).
    pub fn failed(&mut self) -> bool {
        self.saving.take().is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sim::protocol::Setup;
    use sim::{ScenarioRun, Vec2};

    fn recording() -> Scenario {
        let mut run = ScenarioRun::record("run", 7, Setup::default());
        for _ in 0..30 {
            run.step_live(1.0 / 60.0, Vec2::new(1.0, 0.0), false, false);
        }
        run.stop_recording();
        run.scenario().clone()
    }

    #[test]
    fn save_sends_once_per_name_and_description_and_refuses_what_is_not_ours() {
        let mut r = Recorder::default();
        assert_eq!(
            r.save("a".into(), String::new()),
            Save::Nothing,
            "nothing yet"
        );
        r.keep(recording());
        assert!(matches!(r.save("".into(), String::new()), Save::Invalid(_)));
        let Save::Send(bytes) = r.save("a".into(), "d".into()) else {
            panic!("a valid recording is sent");
        };
        let sent = codec::decode(&bytes).expect("the bytes decode");
        assert_eq!((sent.name.as_str(), sent.description.as_str()), ("a", "d"));
        r.saved("id1");
        assert_eq!(r.save("a".into(), "d".into()), Save::Already("id1".into()));
        assert!(
            matches!(r.save("a".into(), "e".into()), Save::Send(_)),
            "a new description"
        );
        assert!(r.failed(), "the save in flight failed");
        assert!(!r.failed(), "no save in flight any more");
        assert_eq!(
            r.save("a".into(), "d".into()),
            Save::Already("id1".into()),
            "a failed save does not forget the stored one"
        );
        r.opened_link();
        assert_eq!(
            r.save("a".into(), "d".into()),
            Save::Nothing,
            "a link's scenario"
        );
        assert!(r.can_replay());
    }
}
