//! Typed errors of the crowd: loading archetypes and scenarios, and building a simulation.

use std::path::PathBuf;

/// Everything that can go wrong setting up a crowd.
#[derive(Debug, thiserror::Error)]
pub enum CrowdError {
    /// A file could not be read.
    #[error("could not read {path}: {source}; check that the file exists and is readable")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A RON file did not parse.
    #[error(
        "{what} {path} is not valid RON: {message}; fix the file or restore it from the repository"
    )]
    Ron {
        /// What the file should hold ("archetype file", "scenario").
        what: &'static str,
        /// The file (or `<memory>` for a string).
        path: PathBuf,
        /// Parser message with line and column.
        message: String,
    },
    /// A spawn names an archetype that is not defined.
    #[error(
        "the scenario spawns archetype \"{name}\", which is not defined; add it to the archetype file or fix the name"
    )]
    UnknownArchetype {
        /// The name used.
        name: String,
    },
    /// An archetype names a movement type the navigation data does not have.
    #[error(
        "archetype \"{archetype}\" uses movement type \"{movement_type}\", which the navigation data does not have; bake that type or change the archetype"
    )]
    UnknownMovementType {
        /// The archetype.
        archetype: String,
        /// The movement type it names.
        movement_type: String,
    },
    /// An archetype has an impossible parameter.
    #[error("archetype \"{name}\" has {field} = {value}, outside its range: it must be {range}")]
    InvalidArchetype {
        /// The archetype.
        name: String,
        /// The parameter.
        field: &'static str,
        /// Its value.
        value: f32,
        /// The range it must lie in, in words.
        range: String,
    },
    /// A crowd parameter (`SimConfig::PARAMS`) that is unknown or out of its range.
    #[error("crowd parameter {name} = {value}: {problem}")]
    InvalidParameter {
        /// The parameter's name.
        name: String,
        /// The value given.
        value: f32,
        /// What is wrong and what to do, in words.
        problem: String,
    },
    /// A scenario file whose settings are out of range.
    #[error("scenario {path}: {source}; fix its config or save it again from the editor")]
    ScenarioConfig {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: Box<CrowdError>,
    },
    /// A position that is not a finite number.
    #[error("the {what} ({x}, {y}) m is not a finite position; pass finite metres")]
    NotFinite {
        /// What the position is ("agent position", "order goal").
        what: &'static str,
        /// Its x.
        x: f32,
        /// Its y.
        y: f32,
    },
    /// A cost grid does not fit the map.
    #[error(
        "cost grid for movement type \"{name}\" holds {found} cells but the map has {expected}; give one cost per cell"
    )]
    GridSize {
        /// Movement type.
        name: String,
        /// Cells on the map.
        expected: usize,
        /// Cells given.
        found: usize,
    },
}
