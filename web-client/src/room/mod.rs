//! A shared room (issue #13, reference `003_…`): several players on the
//! relay, each predicting its own character (the CMC model), the others
//! as simulated proxies, shots judged by the server with lag
//! compensation, ammo with its jumps. Here is everything the page does in
//! a room: the connection, this player's frame, the three panels' drawing
//! (the others, the shots, the four views of one), the words and cards,
//! the Room section, and the pure decisions behind them. Entering and
//! leaving are the app's (`crate::app`).
//!
//! | module | holds |
//! |---|---|
//! | `link` | [`link::RoomRun`]: the socket to `/ws?room=NAME` with resume, the room's client end, what its view keeps |
//! | `frame` | this player's frame: switches, bots, fire, reload, moves sent, CSV, ◀ ▶ through the shots |
//! | `view` | what is recorded, drawn and written each frame: timeline, panels, their lines, the Metrics, Link and Room read-outs |
//! | `panels` | the three panels' drawing in a room |
//! | `page` | what a room borrows of the page (panel texts, controls turned off, the address bar) and gives back |
//! | `controls` | the Room section: name, Join / Leave, the relay's rooms, the room's switches, the shot log |
//! | `fork` | the Room section's What if: the relay's recording of the room forked in the page with rewind off or another cap, the shots judged otherwise |
//! | `recorded`, `recorded_panels` | a saved room recording opened in the page (`?room-recording=ID`): played back in wasm, checked against the relay's tick hashes, a seat to watch from, play / seek, the shots, the seat's lanes; its three panels |
//! | `recorded_card` | the card both kinds of recording drive: verdict, Play, seek, seat, Close, picks, lanes; [`recorded_card::Playhead`] |
//! | `recorded_match`, `recorded_match_panels` | a saved rollback match recording (`?match-recording=ID`): re-run in wasm, every tick hash checked, a seat to follow, the ticks the server filled its input (held / empty) on its lane and its path; its three panels |
//! | `save` | the Room section's Save link: the relay keeps the room's recording, the page shows `/?room-recording=ID` |
//! | `lanes` | the packet lanes' room events: shots and verdicts, rewinds, proxy jumps, late net updates, ammo jumps, and their stories; a playback seat's shot marks (pure) |
//! | `rules` | names that join, whom F aims at, the shot shown, shot lines and tallies, ammo jumps (pure) |
//! | `match_run` | a rollback room (issue 22): [`match_run::MatchRun`], the socket to `/ws?room=NAME&model=rollback` and the page's rollback predictor in the match, the last rebase and who caused it |
//! | `match_panels` | the three panels of a rollback room: everyone predicted, the confirmed State, the last rebase |
//! | `match_card` | the Room section's match card: seat, positions, HP, the per-player table |
//! | `match_lanes` | a rollback match's lanes: this page's link as the relay traced it, the rebases remote input caused (pure) |
//! | `match_texts` | the panel texts and controls a match borrows (the model selector off: the room chose it), the address bar |
//! | `match_rules` | a match's names, read-outs and who caused a rebase (pure) |

pub mod controls;
pub mod fork;
pub mod frame;
pub mod lanes;
pub mod link;
pub mod match_card;
pub mod match_lanes;
pub mod match_panels;
pub mod match_rules;
pub mod match_run;
pub mod match_texts;
pub mod page;
pub mod panels;
pub mod recorded;
pub mod recorded_card;
pub mod recorded_match;
pub mod recorded_match_panels;
pub mod recorded_panels;
pub mod rules;
pub mod save;
pub mod view;
