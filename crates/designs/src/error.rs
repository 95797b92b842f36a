//! Errors of the design layer, with the design, actor or line they concern.

use aesflow_array::{MapError, SimError};

/// What went wrong with a design.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A description file does not parse.
    Parse {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A design is malformed (rates, missing inputs, key paths, …).
    Invalid {
        /// The design.
        design: String,
        /// The actor concerned, if one.
        actor: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The key does not fit the design.
    Key {
        /// The design.
        design: String,
        /// What is wrong.
        message: String,
    },
    /// The compiled application cannot be mapped on the array.
    Map {
        /// The design.
        design: String,
        /// The mapper's error.
        source: MapError,
    },
    /// The simulation did not complete.
    Sim {
        /// The design.
        design: String,
        /// The simulator's error.
        source: SimError,
    },
    /// The SDF analysis failed.
    Dataflow {
        /// The design.
        design: String,
        /// What went wrong.
        message: String,
    },
    /// Nothing to simulate.
    NoBlocks,
}

impl Error {
    /// A malformed design, at an actor.
    pub fn invalid(design: &str, actor: Option<&str>, message: impl Into<String>) -> Self {
        Error::Invalid {
            design: design.to_string(),
            actor: actor.map(str::to_string),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Error::Parse { line, message } => write!(f, "line {line}: {message}"),
            Error::Invalid {
                design,
                actor: Some(a),
                message,
            } => write!(f, "design {design}, actor {a}: {message}"),
            Error::Invalid {
                design,
                actor: None,
                message,
            } => write!(f, "design {design}: {message}"),
            Error::Key { design, message } => write!(f, "design {design}: {message}"),
            Error::Map { design, source } => write!(f, "design {design}: cannot map: {source}"),
            Error::Sim { design, source } => write!(f, "design {design}: {source}"),
            Error::Dataflow { design, message } => {
                write!(f, "design {design}: SDF analysis: {message}")
            }
            Error::NoBlocks => write!(f, "no blocks to simulate (give at least one)"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Map { source, .. } => Some(source),
            Error::Sim { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl From<Error> for String {
    fn from(e: Error) -> String {
        e.to_string()
    }
}
