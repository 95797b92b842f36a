//! Actors, ports, channels and their ids: the parts an [`SdfGraph`](super::SdfGraph) is made of.

use std::fmt;

use serde::Serialize;

#[allow(unused_imports)] // for intra-doc links
use super::SdfGraph;
use crate::fxhash::FxSet;
/// An index type: the position of an item in one of a graph's lists,
/// displayed with a prefix.
macro_rules! index_id {
    ($(#[$doc:meta])* $name:ident, $what:literal, $list:literal, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
        #[serde(transparent)]
        pub struct $name(pub(crate) usize);

        impl $name {
            #[doc = concat!("The position of the ", $what, " in [`SdfGraph::", $list, "`].")]
            pub fn index(self) -> usize {
                self.0
            }

            #[doc = concat!("Builds an id from a position in [`SdfGraph::", $list, "`].")]
            pub fn from_index(index: usize) -> Self {
                $name(index)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

index_id!(
    /// Identifies an actor inside one [`SdfGraph`] (an index into its actor
    /// list). Ids are only meaningful for the graph that created them.
    ActorId,
    "actor",
    "actors",
    "#"
);

index_id!(
    /// Identifies a channel inside one [`SdfGraph`] (an index into its
    /// channel list).
    ChannelId,
    "channel",
    "channels",
    "c"
);

/// Identifies a port: the owning actor and the port's position in
/// [`Actor::ports`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct PortId {
    /// Owning actor.
    pub actor: ActorId,
    /// Position in the actor's port list.
    pub index: usize,
}

/// Direction of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum PortDirection {
    /// Consumes `rate` tokens per firing.
    In,
    /// Produces `rate` tokens per firing.
    Out,
}

impl PortDirection {
    /// `"in"` or `"out"` (the SDF3 spelling).
    pub fn as_str(self) -> &'static str {
        match self {
            PortDirection::In => "in",
            PortDirection::Out => "out",
        }
    }
}

/// A port of an actor: a named connection point with a fixed rate (tokens
/// consumed or produced per firing).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Port {
    /// Port name, unique within its actor.
    pub name: String,
    /// Input or output.
    pub direction: PortDirection,
    /// Tokens consumed (input) or produced (output) per firing; must be > 0.
    pub rate: u64,
    pub(crate) channel: Option<ChannelId>,
}

impl Port {
    /// The channel attached to this port, if any.
    pub fn channel(&self) -> Option<ChannelId> {
        self.channel
    }
}

/// An SDF actor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Actor {
    /// Actor name (should be unique in the graph; required for SDF3 export).
    pub name: String,
    /// Free-form classification ("type" in SDF3), e.g. the task an actor
    /// implements. Not interpreted by this crate.
    pub kind: String,
    /// Execution time of one firing, in cycles (time units).
    pub exec_time: u64,
    pub(crate) ports: Vec<Port>,
}

impl Actor {
    /// The actor's ports, in creation order.
    pub fn ports(&self) -> &[Port] {
        &self.ports
    }

    /// Mutable access to a port (e.g. to change its rate or name). The
    /// direction and the attached channel cannot be changed this way.
    pub fn port_mut(&mut self, index: usize) -> Option<PortMut<'_>> {
        self.ports.get_mut(index).map(|p| PortMut { port: p })
    }

    /// Index of the port named `name`.
    pub fn find_port(&self, name: &str) -> Option<usize> {
        self.ports.iter().position(|p| p.name == name)
    }
}

/// Restricted mutable view of a [`Port`]: name and rate may change, the
/// direction and connection may not.
#[derive(Debug)]
pub struct PortMut<'a> {
    pub(super) port: &'a mut Port,
}

impl PortMut<'_> {
    /// Sets the port rate.
    pub fn set_rate(&mut self, rate: u64) {
        self.port.rate = rate;
    }

    /// Renames the port.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.port.name = name.into();
    }
}

/// A channel (edge): a FIFO from an output port to an input port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Channel name (should be unique in the graph; required for SDF3 export).
    pub name: String,
    /// The producing (output) port.
    pub src: PortId,
    /// The consuming (input) port.
    pub dst: PortId,
    /// Tokens present before execution starts (delays).
    pub initial_tokens: u64,
    /// FIFO capacity in tokens; `None` means unbounded. Analyses model a
    /// bounded channel by a reverse channel carrying `capacity -
    /// initial_tokens` "space" tokens.
    pub capacity: Option<u64>,
    /// Size of one token (e.g. bytes or words); informational only, kept for
    /// SDF3 round trips (`tokenSize`).
    pub token_size: Option<u64>,
}

impl Channel {
    /// The producing actor.
    pub fn src_actor(&self) -> ActorId {
        self.src.actor
    }

    /// The consuming actor.
    pub fn dst_actor(&self) -> ActorId {
        self.dst.actor
    }

    /// Whether the channel connects an actor to itself.
    pub fn is_self_loop(&self) -> bool {
        self.src.actor == self.dst.actor
    }
}

/// Restricted mutable view of a [`Channel`]: everything except the
/// endpoints may change.
#[derive(Debug)]
pub struct ChannelMut<'a> {
    pub(super) channel: &'a mut Channel,
    pub(super) used_names: &'a mut FxSet<u64>,
}

impl ChannelMut<'_> {
    /// Renames the channel.
    pub fn set_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.channel.name = name.into();
        note_generated_name(self.used_names, &self.channel.name);
        self
    }

    /// Sets the initial tokens.
    pub fn set_initial_tokens(&mut self, tokens: u64) -> &mut Self {
        self.channel.initial_tokens = tokens;
        self
    }

    /// Sets (or removes, with `None`) the FIFO capacity.
    pub fn set_capacity(&mut self, capacity: Option<u64>) -> &mut Self {
        self.channel.capacity = capacity;
        self
    }

    /// Sets (or removes) the token size.
    pub fn set_token_size(&mut self, size: Option<u64>) -> &mut Self {
        self.channel.token_size = size;
        self
    }
}

/// Records `k` if `name` is exactly `ch{k}`, the form of the names
/// [`SdfGraph::connect`] generates.
pub(super) fn note_generated_name(used: &mut FxSet<u64>, name: &str) {
    if let Some(r) = name.strip_prefix("ch")
        && !r.is_empty()
        && r.bytes().all(|b| b.is_ascii_digit())
        && (r == "0" || !r.starts_with('0'))
        && let Ok(k) = r.parse::<u64>()
    {
        used.insert(k);
    }
}

/// Where an analysis edge comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(tag = "kind", content = "id", rename_all = "lowercase")]
pub enum EdgeOrigin {
    /// A channel of the SDF graph (data tokens).
    Channel(ChannelId),
    /// The reverse "free space" edge modelling the capacity of a channel.
    Capacity(ChannelId),
    /// The implicit self-loop that forbids auto-concurrency of an actor.
    Sequential(ActorId),
}

/// An edge as seen by the analyses (channel or capacity edge).
#[derive(Debug, Clone, Copy)]
pub(crate) struct FlowEdge {
    pub src: usize,
    pub dst: usize,
    pub prod: u64,
    pub cons: u64,
    pub tokens: u64,
    pub origin: EdgeOrigin,
}
