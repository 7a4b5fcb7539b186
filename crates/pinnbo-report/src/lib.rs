//! What pinnbo draws and what a finished run leaves: the pictures (`plot`: lines, bands,
//! heat maps, as PNG or SVG with an embedded font) and a run's outputs (`write_outputs`:
//! `summary.json`, `history.csv` and the run's pictures). The command line and the Python
//! package both use it; it never prints: what could not be drawn comes back as warnings.

mod pictures;
pub mod plot;

pub use pictures::{write_outputs, Written};
