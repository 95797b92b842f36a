//! The crate-wide error type.

use std::fmt;

use crate::graph::{ActorId, ChannelId};

/// Everything that can go wrong when building, analysing, importing or
/// exporting an SDF graph.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum SdfError {
    /// A port or channel has a rate of zero; SDF rates must be positive.
    ZeroRate {
        /// Actor owning the offending port.
        actor: ActorId,
        /// Name of the offending port.
        port: String,
    },
    /// The balance equations have no non-trivial solution: the channel
    /// `channel` contradicts the rates already implied by the rest of its
    /// connected component (the graph would accumulate or starve tokens
    /// without bound).
    Inconsistent {
        /// First channel found on which the balance equation fails.
        channel: ChannelId,
        /// Human-readable explanation.
        detail: String,
    },
    /// An intermediate value of the repetition vector does not fit in 64 bits.
    RepetitionOverflow,
    /// A bounded channel holds more initial tokens than its capacity.
    CapacityTooSmall {
        /// The bounded channel.
        channel: ChannelId,
        /// Its capacity.
        capacity: u64,
        /// Its initial tokens.
        initial_tokens: u64,
    },
    /// The graph deadlocks: one iteration cannot be completed. `stuck` lists
    /// the actors that could not complete all firings of the iteration.
    Deadlock {
        /// Actors that have firings left when no actor is enabled any more.
        stuck: Vec<ActorId>,
    },
    /// The equivalent homogeneous graph would exceed the configured size.
    HsdfTooLarge {
        /// Number of HSDF nodes (sum of the repetition vector).
        nodes: u128,
        /// The configured limit.
        limit: u64,
    },
    /// The state-space exploration exceeded its step budget.
    StateSpaceLimit {
        /// The step budget that was exhausted.
        steps: u64,
    },
    /// A port is used in a way that does not match its direction.
    WrongPortDirection {
        /// Actor owning the port.
        actor: ActorId,
        /// Port name.
        port: String,
    },
    /// A port is already connected to a channel (each port carries exactly
    /// one channel).
    PortAlreadyConnected {
        /// Actor owning the port.
        actor: ActorId,
        /// Port name.
        port: String,
    },
    /// A port index does not exist on its actor.
    NoSuchPort {
        /// Actor that was addressed.
        actor: ActorId,
        /// Port index that was addressed.
        index: usize,
    },
    /// Two actors, two channels, or two ports of one actor share a name
    /// where names must be unique (e.g. for SDF3 export).
    DuplicateName {
        /// What kind of item ("actor", "channel", "port").
        what: &'static str,
        /// The duplicated name.
        name: String,
    },
    /// Malformed or unsupported SDF3 XML input.
    Sdf3 {
        /// Human-readable explanation (includes the position if known).
        message: String,
    },
}

impl SdfError {
    pub(crate) fn sdf3(message: impl Into<String>) -> Self {
        SdfError::Sdf3 {
            message: message.into(),
        }
    }
}

impl fmt::Display for SdfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SdfError::ZeroRate { actor, port } => {
                write!(f, "port `{port}` of actor {actor} has rate 0")
            }
            SdfError::Inconsistent { channel, detail } => {
                write!(f, "inconsistent SDF graph at channel {channel}: {detail}")
            }
            SdfError::RepetitionOverflow => {
                write!(f, "repetition vector does not fit in 64-bit integers")
            }
            SdfError::CapacityTooSmall {
                channel,
                capacity,
                initial_tokens,
            } => write!(
                f,
                "channel {channel} has capacity {capacity} but {initial_tokens} initial tokens"
            ),
            SdfError::Deadlock { stuck } => {
                write!(f, "graph deadlocks; stuck actors:")?;
                for a in stuck {
                    write!(f, " {a}")?;
                }
                Ok(())
            }
            SdfError::HsdfTooLarge { nodes, limit } => write!(
                f,
                "equivalent HSDF graph has {nodes} nodes, more than the limit {limit}"
            ),
            SdfError::StateSpaceLimit { steps } => {
                write!(f, "state-space exploration exceeded {steps} steps")
            }
            SdfError::WrongPortDirection { actor, port } => {
                write!(f, "port `{port}` of actor {actor} has the wrong direction")
            }
            SdfError::PortAlreadyConnected { actor, port } => {
                write!(f, "port `{port}` of actor {actor} is already connected")
            }
            SdfError::NoSuchPort { actor, index } => {
                write!(f, "actor {actor} has no port with index {index}")
            }
            SdfError::DuplicateName { what, name } => write!(f, "duplicate {what} name `{name}`"),
            SdfError::Sdf3 { message } => write!(f, "SDF3 XML: {message}"),
        }
    }
}

impl std::error::Error for SdfError {}
