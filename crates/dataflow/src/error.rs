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
    /// The equivalent homogeneous graph could have more edges than allowed.
    HsdfTooManyEdges {
        /// Upper bound on the number of HSDF edges.
        edges: u128,
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
        /// Human-readable explanation.
        message: String,
        /// Line and column (1-based) of the offending element, if known.
        position: Option<(u32, u32)>,
    },
    /// The XML document nests elements deeper than the configured limit
    /// (checked before parsing, so that a hostile document cannot exhaust
    /// the stack of the XML parser).
    XmlTooDeep {
        /// Line (1-based) where the limit was exceeded.
        line: u32,
        /// The configured limit.
        limit: usize,
    },
    /// An intermediate value (a clock, a token count, a cycle weight) does
    /// not fit the integer type of the analysis; no result is better than a
    /// wrong one.
    Overflow {
        /// What overflowed.
        what: &'static str,
    },
    /// An iterative analysis did not finish within its work budget.
    WorkLimit {
        /// Which analysis ("deadlock check", "Howard's MCR", ...).
        analysis: &'static str,
        /// The budget (steps or policy iterations).
        limit: u64,
    },
    /// An iterative analysis provably needs more work than its budget: it
    /// is refused at once instead of running out of the budget.
    WorkBound {
        /// Which analysis.
        analysis: &'static str,
        /// A lower bound on the steps it needs.
        at_least: u128,
        /// The budget.
        limit: u64,
    },
    /// The state-space exploration would store more state than allowed.
    StateSpaceTooLarge {
        /// Integers that would be stored.
        values: u64,
        /// The configured limit.
        limit: u64,
    },
    /// The analysis needs a strongly connected graph (as SDF3's latency
    /// analysis does).
    NotStronglyConnected,
    /// An actor name that does not exist in the graph.
    UnknownActor {
        /// The name that was looked up.
        name: String,
    },
}

impl SdfError {
    pub(crate) fn sdf3_at(message: impl Into<String>, line: u32, column: u32) -> Self {
        SdfError::Sdf3 {
            message: message.into(),
            position: Some((line, column)),
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
            SdfError::HsdfTooManyEdges { edges, limit } => write!(
                f,
                "equivalent HSDF graph could have up to {edges} edges, more than the limit {limit}"
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
            SdfError::Sdf3 {
                message,
                position: Some((l, c)),
            } => write!(f, "SDF3 XML, line {l}, column {c}: {message}"),
            SdfError::Sdf3 {
                message,
                position: None,
            } => write!(f, "SDF3 XML: {message}"),
            SdfError::XmlTooDeep { line, limit } => write!(
                f,
                "XML line {line}: elements nested more than {limit} levels deep (SDF3 files need 6)"
            ),
            SdfError::Overflow { what } => write!(f, "arithmetic overflow: {what}"),
            SdfError::WorkLimit { analysis, limit } => {
                write!(f, "{analysis} did not finish within {limit} steps")
            }
            SdfError::WorkBound {
                analysis,
                at_least,
                limit,
            } => write!(
                f,
                "{analysis} refused: it needs at least {at_least} steps (rates this large on a cycle with this few tokens), more than the limit of {limit} (--max-work)"
            ),
            SdfError::StateSpaceTooLarge { values, limit } => write!(
                f,
                "state-space exploration would store more than {limit} integers ({values} so far)"
            ),
            SdfError::NotStronglyConnected => {
                write!(
                    f,
                    "the graph is not strongly connected (latency needs it, as in SDF3)"
                )
            }
            SdfError::UnknownActor { name } => write!(f, "no actor named `{name}`"),
        }
    }
}

impl std::error::Error for SdfError {}
