//! Errors of the array model, with the actor, core or edge they concern.

/// Why an application cannot be mapped or gathered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MapError {
    /// An edge is written and read a different number of words per period.
    Rates {
        /// Edge index.
        edge: usize,
        /// Producer name.
        src: String,
        /// Consumer name.
        dst: String,
        /// Words written per period.
        written: usize,
        /// Words read per period.
        read: usize,
    },
    /// An edge no step reads.
    NeverRead {
        /// Edge index.
        edge: usize,
    },
    /// A compute core has more inputs than the platform's ports.
    TooManyInputs {
        /// Core name.
        core: String,
        /// Its inputs.
        inputs: usize,
        /// The platform's input ports.
        max: usize,
    },
    /// A compute actor reads no input: it would run without end.
    NoInput {
        /// Actor name.
        actor: String,
    },
    /// The application is malformed (an index out of range, a step on an
    /// edge that is not the actor's).
    Invalid {
        /// Actor name (or `-`).
        actor: String,
        /// What is wrong.
        message: String,
    },
    /// Copies cannot be gathered ([`crate::gather`]).
    Gather {
        /// What is wrong.
        message: String,
    },
}

impl std::fmt::Display for MapError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MapError::Rates {
                edge,
                src,
                dst,
                written,
                read,
            } => write!(
                f,
                "edge {edge} {src} -> {dst}: {written} words written but {read} read per period"
            ),
            MapError::NeverRead { edge } => write!(f, "edge {edge} is never read"),
            MapError::TooManyInputs { core, inputs, max } => {
                write!(f, "core {core} has {inputs} inputs (at most {max})")
            }
            MapError::NoInput { actor } => {
                write!(f, "actor {actor} reads no input: it would run without end")
            }
            MapError::Invalid { actor, message } => write!(f, "actor {actor}: {message}"),
            MapError::Gather { message } => write!(f, "gather: {message}"),
        }
    }
}

impl std::error::Error for MapError {}

impl From<MapError> for String {
    fn from(e: MapError) -> String {
        e.to_string()
    }
}
