//! The SDF graph data structure and its builder API.

use std::collections::HashSet;
use std::fmt;

use crate::error::SdfError;

/// Identifies an actor inside one [`SdfGraph`] (an index into its actor
/// list). Ids are only meaningful for the graph that created them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ActorId(pub(crate) usize);

impl ActorId {
    /// The position of the actor in [`SdfGraph::actors`].
    pub fn index(self) -> usize {
        self.0
    }

    /// Builds an id from a position in [`SdfGraph::actors`].
    pub fn from_index(index: usize) -> Self {
        ActorId(index)
    }
}

impl fmt::Display for ActorId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Identifies a channel inside one [`SdfGraph`] (an index into its channel
/// list).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ChannelId(pub(crate) usize);

impl ChannelId {
    /// The position of the channel in [`SdfGraph::channels`].
    pub fn index(self) -> usize {
        self.0
    }

    /// Builds an id from a position in [`SdfGraph::channels`].
    pub fn from_index(index: usize) -> Self {
        ChannelId(index)
    }
}

impl fmt::Display for ChannelId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "c{}", self.0)
    }
}

/// Identifies a port: the owning actor and the port's position in
/// [`Actor::ports`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PortId {
    /// Owning actor.
    pub actor: ActorId,
    /// Position in the actor's port list.
    pub index: usize,
}

/// Direction of a port.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
    port: &'a mut Port,
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

/// A synchronous dataflow graph: actors connected by channels with fixed
/// production/consumption rates.
///
/// ```
/// use aesflow_dataflow::SdfGraph;
/// let mut g = SdfGraph::new("pipeline");
/// let a = g.add_actor("A", "source", 10);
/// let b = g.add_actor("B", "sink", 20);
/// // A produces 2 tokens per firing, B consumes 3, no initial tokens.
/// let ch = g.connect(a, 2, b, 3, 0);
/// assert_eq!(g.production_rate(ch), 2);
/// let q = g.repetition_vector().unwrap();
/// assert_eq!((q[a], q[b]), (3, 2));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SdfGraph {
    name: String,
    actors: Vec<Actor>,
    channels: Vec<Channel>,
}

impl SdfGraph {
    /// An empty graph.
    pub fn new(name: impl Into<String>) -> Self {
        SdfGraph {
            name: name.into(),
            actors: Vec::new(),
            channels: Vec::new(),
        }
    }

    /// Graph name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Renames the graph.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = name.into();
    }

    /// Adds an actor without ports and returns its id.
    pub fn add_actor(
        &mut self,
        name: impl Into<String>,
        kind: impl Into<String>,
        exec_time: u64,
    ) -> ActorId {
        self.actors.push(Actor {
            name: name.into(),
            kind: kind.into(),
            exec_time,
            ports: Vec::new(),
        });
        ActorId(self.actors.len() - 1)
    }

    /// Adds an (unconnected) port to `actor`.
    ///
    /// # Panics
    /// Panics if `actor` is not an actor of this graph.
    pub fn add_port(
        &mut self,
        actor: ActorId,
        name: impl Into<String>,
        direction: PortDirection,
        rate: u64,
    ) -> PortId {
        let a = &mut self.actors[actor.0];
        a.ports.push(Port {
            name: name.into(),
            direction,
            rate,
            channel: None,
        });
        PortId {
            actor,
            index: a.ports.len() - 1,
        }
    }

    /// Connects `src` to `dst` with a new unbounded channel: every firing of
    /// `src` produces `production` tokens, every firing of `dst` consumes
    /// `consumption` tokens, and `initial_tokens` tokens are present
    /// initially. Fresh ports (`out<k>` / `in<k>`) and a channel name
    /// (`ch<k>`) are generated.
    ///
    /// # Panics
    /// Panics if `src` or `dst` is not an actor of this graph.
    pub fn connect(
        &mut self,
        src: ActorId,
        production: u64,
        dst: ActorId,
        consumption: u64,
        initial_tokens: u64,
    ) -> ChannelId {
        let out_name = format!("out{}", self.actors[src.0].ports.len());
        let sp = self.add_port(src, out_name, PortDirection::Out, production);
        let in_name = format!("in{}", self.actors[dst.0].ports.len());
        let dp = self.add_port(dst, in_name, PortDirection::In, consumption);
        let name = self.fresh_channel_name();
        self.push_channel(name, sp, dp, initial_tokens)
    }

    /// Like [`connect`](Self::connect) but the channel is a bounded FIFO of
    /// `capacity` tokens.
    ///
    /// # Panics
    /// Panics if `src` or `dst` is not an actor of this graph.
    pub fn connect_with_capacity(
        &mut self,
        src: ActorId,
        production: u64,
        dst: ActorId,
        consumption: u64,
        initial_tokens: u64,
        capacity: u64,
    ) -> ChannelId {
        let c = self.connect(src, production, dst, consumption, initial_tokens);
        self.channels[c.0].capacity = Some(capacity);
        c
    }

    /// Connects two existing ports with a new named channel. `src` must be an
    /// unconnected output port and `dst` an unconnected input port.
    pub fn connect_ports(
        &mut self,
        name: impl Into<String>,
        src: PortId,
        dst: PortId,
        initial_tokens: u64,
    ) -> Result<ChannelId, SdfError> {
        self.check_free_port(src, PortDirection::Out)?;
        self.check_free_port(dst, PortDirection::In)?;
        Ok(self.push_channel(name.into(), src, dst, initial_tokens))
    }

    fn check_free_port(&self, p: PortId, dir: PortDirection) -> Result<(), SdfError> {
        let actor = self.actors.get(p.actor.0).ok_or(SdfError::NoSuchPort {
            actor: p.actor,
            index: p.index,
        })?;
        let port = actor.ports.get(p.index).ok_or(SdfError::NoSuchPort {
            actor: p.actor,
            index: p.index,
        })?;
        if port.direction != dir {
            return Err(SdfError::WrongPortDirection {
                actor: p.actor,
                port: port.name.clone(),
            });
        }
        if port.channel.is_some() {
            return Err(SdfError::PortAlreadyConnected {
                actor: p.actor,
                port: port.name.clone(),
            });
        }
        Ok(())
    }

    fn fresh_channel_name(&self) -> String {
        let mut k = self.channels.len();
        loop {
            let n = format!("ch{k}");
            if !self.channels.iter().any(|c| c.name == n) {
                return n;
            }
            k += 1;
        }
    }

    fn push_channel(
        &mut self,
        name: String,
        src: PortId,
        dst: PortId,
        initial_tokens: u64,
    ) -> ChannelId {
        let id = ChannelId(self.channels.len());
        self.actors[src.actor.0].ports[src.index].channel = Some(id);
        self.actors[dst.actor.0].ports[dst.index].channel = Some(id);
        self.channels.push(Channel {
            name,
            src,
            dst,
            initial_tokens,
            capacity: None,
            token_size: None,
        });
        id
    }

    /// Number of actors.
    pub fn num_actors(&self) -> usize {
        self.actors.len()
    }

    /// Number of channels.
    pub fn num_channels(&self) -> usize {
        self.channels.len()
    }

    /// All actors, indexed by [`ActorId::index`].
    pub fn actors(&self) -> &[Actor] {
        &self.actors
    }

    /// All channels, indexed by [`ChannelId::index`].
    pub fn channels(&self) -> &[Channel] {
        &self.channels
    }

    /// Iterator over all actor ids.
    pub fn actor_ids(&self) -> impl Iterator<Item = ActorId> + '_ {
        (0..self.actors.len()).map(ActorId)
    }

    /// Iterator over all channel ids.
    pub fn channel_ids(&self) -> impl Iterator<Item = ChannelId> + '_ {
        (0..self.channels.len()).map(ChannelId)
    }

    /// The actor with id `id`.
    ///
    /// # Panics
    /// Panics if `id` is not an actor of this graph.
    pub fn actor(&self, id: ActorId) -> &Actor {
        &self.actors[id.0]
    }

    /// Mutable access to an actor (name, kind, execution time, port rates).
    ///
    /// # Panics
    /// Panics if `id` is not an actor of this graph.
    pub fn actor_mut(&mut self, id: ActorId) -> &mut Actor {
        &mut self.actors[id.0]
    }

    /// The channel with id `id`.
    ///
    /// # Panics
    /// Panics if `id` is not a channel of this graph.
    pub fn channel(&self, id: ChannelId) -> &Channel {
        &self.channels[id.0]
    }

    /// Mutable access to a channel's name, initial tokens, capacity and token
    /// size. Its endpoints cannot be changed.
    ///
    /// # Panics
    /// Panics if `id` is not a channel of this graph.
    pub fn channel_mut(&mut self, id: ChannelId) -> ChannelMut<'_> {
        ChannelMut {
            channel: &mut self.channels[id.0],
        }
    }

    /// Looks an actor up by name (first match).
    pub fn find_actor(&self, name: &str) -> Option<ActorId> {
        self.actors.iter().position(|a| a.name == name).map(ActorId)
    }

    /// Looks a channel up by name (first match).
    pub fn find_channel(&self, name: &str) -> Option<ChannelId> {
        self.channels
            .iter()
            .position(|c| c.name == name)
            .map(ChannelId)
    }

    /// The port `p`.
    ///
    /// # Panics
    /// Panics if the port does not exist.
    pub fn port(&self, p: PortId) -> &Port {
        &self.actors[p.actor.0].ports[p.index]
    }

    /// Tokens produced on channel `c` per firing of its source actor.
    pub fn production_rate(&self, c: ChannelId) -> u64 {
        self.port(self.channels[c.0].src).rate
    }

    /// Tokens consumed from channel `c` per firing of its destination actor.
    pub fn consumption_rate(&self, c: ChannelId) -> u64 {
        self.port(self.channels[c.0].dst).rate
    }

    /// Channels whose destination is `actor`.
    pub fn input_channels(&self, actor: ActorId) -> impl Iterator<Item = ChannelId> + '_ {
        self.actors[actor.0]
            .ports
            .iter()
            .filter(|p| p.direction == PortDirection::In)
            .filter_map(|p| p.channel)
    }

    /// Channels whose source is `actor`.
    pub fn output_channels(&self, actor: ActorId) -> impl Iterator<Item = ChannelId> + '_ {
        self.actors[actor.0]
            .ports
            .iter()
            .filter(|p| p.direction == PortDirection::Out)
            .filter_map(|p| p.channel)
    }

    /// Checks structural well-formedness: unique actor names, unique channel
    /// names, unique port names per actor, positive rates on connected
    /// ports, and capacities not below the initial tokens. Unconnected ports
    /// are allowed (they are ignored by all analyses).
    pub fn validate(&self) -> Result<(), SdfError> {
        let mut names = HashSet::new();
        for a in &self.actors {
            if !names.insert(a.name.as_str()) {
                return Err(SdfError::DuplicateName {
                    what: "actor",
                    name: a.name.clone(),
                });
            }
        }
        for a in &self.actors {
            let mut pn = HashSet::new();
            for p in &a.ports {
                if !pn.insert(p.name.as_str()) {
                    return Err(SdfError::DuplicateName {
                        what: "port",
                        name: format!("{}.{}", a.name, p.name),
                    });
                }
            }
        }
        let mut cn = HashSet::new();
        for c in &self.channels {
            if !cn.insert(c.name.as_str()) {
                return Err(SdfError::DuplicateName {
                    what: "channel",
                    name: c.name.clone(),
                });
            }
        }
        self.check_rates()?;
        self.check_capacities()
    }

    pub(crate) fn check_rates(&self) -> Result<(), SdfError> {
        for c in &self.channels {
            for p in [c.src, c.dst] {
                let port = self.port(p);
                if port.rate == 0 {
                    return Err(SdfError::ZeroRate {
                        actor: p.actor,
                        port: port.name.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    pub(crate) fn check_capacities(&self) -> Result<(), SdfError> {
        for (i, c) in self.channels.iter().enumerate() {
            if let Some(cap) = c.capacity
                && cap < c.initial_tokens
            {
                return Err(SdfError::CapacityTooSmall {
                    channel: ChannelId(i),
                    capacity: cap,
                    initial_tokens: c.initial_tokens,
                });
            }
        }
        Ok(())
    }

    /// The channels as seen by the analyses: every channel, plus for every
    /// bounded channel (if `respect_capacities`) a reverse "space" edge.
    pub(crate) fn flow_edges(&self, respect_capacities: bool) -> Result<Vec<FlowEdge>, SdfError> {
        self.check_rates()?;
        if respect_capacities {
            self.check_capacities()?;
        }
        let mut v = Vec::with_capacity(self.channels.len());
        for (i, c) in self.channels.iter().enumerate() {
            let p = self.port(c.src).rate;
            let q = self.port(c.dst).rate;
            v.push(FlowEdge {
                src: c.src.actor.0,
                dst: c.dst.actor.0,
                prod: p,
                cons: q,
                tokens: c.initial_tokens,
                origin: EdgeOrigin::Channel(ChannelId(i)),
            });
            if respect_capacities && let Some(cap) = c.capacity {
                v.push(FlowEdge {
                    src: c.dst.actor.0,
                    dst: c.src.actor.0,
                    prod: q,
                    cons: p,
                    tokens: cap - c.initial_tokens,
                    origin: EdgeOrigin::Capacity(ChannelId(i)),
                });
            }
        }
        Ok(v)
    }
}

/// Restricted mutable view of a [`Channel`]: everything except the
/// endpoints may change.
#[derive(Debug)]
pub struct ChannelMut<'a> {
    channel: &'a mut Channel,
}

impl ChannelMut<'_> {
    /// Renames the channel.
    pub fn set_name(&mut self, name: impl Into<String>) -> &mut Self {
        self.channel.name = name.into();
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

/// Where an analysis edge comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
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
