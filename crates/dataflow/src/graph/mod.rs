//! The SDF graph data structure and its builder API.

use std::collections::HashSet;

use crate::error::SdfError;
use crate::fxhash::FxSet;

mod types;

pub(crate) use types::FlowEdge;
pub use types::{
    Actor, ActorId, Channel, ChannelId, ChannelMut, EdgeOrigin, Port, PortDirection, PortId,
    PortMut,
};

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
#[derive(Debug, Clone, Default)]
pub struct SdfGraph {
    name: String,
    actors: Vec<Actor>,
    channels: Vec<Channel>,
    /// Every `k` such that a channel of this graph has ever been named
    /// `ch{k}` (the form of generated names), so that [`SdfGraph::connect`]
    /// finds a fresh name in constant time instead of scanning all channels.
    used_channel_names: FxSet<u64>,
}

impl PartialEq for SdfGraph {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name && self.actors == other.actors && self.channels == other.channels
    }
}

impl Eq for SdfGraph {}

impl SdfGraph {
    /// An empty graph.
    pub fn new(name: impl Into<String>) -> Self {
        SdfGraph {
            name: name.into(),
            actors: Vec::new(),
            channels: Vec::new(),
            used_channel_names: FxSet::default(),
        }
    }

    /// An empty graph with room for `actors` actors and `channels`
    /// channels.
    pub(crate) fn with_capacity(name: impl Into<String>, actors: usize, channels: usize) -> Self {
        SdfGraph {
            actors: Vec::with_capacity(actors),
            channels: Vec::with_capacity(channels),
            ..SdfGraph::new(name)
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
    /// (`ch<k>`) are generated. Bound the channel with
    /// [`channel_mut`](Self::channel_mut)`(c).set_capacity(Some(n))`.
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
        let mut k = self.channels.len() as u64;
        while self.used_channel_names.contains(&k) {
            k += 1;
        }
        format!("ch{k}")
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
        types::note_generated_name(&mut self.used_channel_names, &name);
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

    /// Makes `actor` a sequential process under auto-concurrency semantics
    /// (SDF3's): adds a self-edge with rate 1 and one initial token, unless
    /// the actor already has a self-loop that lets at most one firing run at
    /// a time (fewer than two firings' worth of tokens). Port names
    /// `seq_out`/`seq_in` and the channel name `<actor>_seq` get a numeric
    /// suffix if taken. Returns the new channel, if one was added. Takes
    /// time linear in the number of channels (to keep names unique); to
    /// make many actors sequential use [`make_all_sequential`](Self::make_all_sequential).
    ///
    /// # Panics
    /// Panics if `actor` is not an actor of this graph.
    pub fn make_sequential(&mut self, actor: ActorId) -> Option<ChannelId> {
        let mut names: HashSet<String> = self.channels.iter().map(|c| c.name.clone()).collect();
        self.make_sequential_named(actor, &mut names)
    }

    /// [`make_sequential`](Self::make_sequential) for every actor; returns
    /// the channels added.
    pub fn make_all_sequential(&mut self) -> Vec<ChannelId> {
        let mut names: HashSet<String> = self.channels.iter().map(|c| c.name.clone()).collect();
        (0..self.actors.len())
            .filter_map(|a| self.make_sequential_named(ActorId(a), &mut names))
            .collect()
    }

    fn make_sequential_named(
        &mut self,
        actor: ActorId,
        names: &mut HashSet<String>,
    ) -> Option<ChannelId> {
        let already = self.output_channels(actor).any(|c| {
            let ch = &self.channels[c.0];
            ch.dst.actor == actor && {
                let cons = self.port(ch.dst).rate.max(1);
                ch.initial_tokens / cons < 2
            }
        });
        if already {
            return None;
        }
        let fresh_port =
            |g: &Self, base: &str| fresh_name(base, |n| g.actors[actor.0].find_port(n).is_some());
        let out = fresh_port(self, "seq_out");
        let sp = self.add_port(actor, out, PortDirection::Out, 1);
        let inp = fresh_port(self, "seq_in");
        let dp = self.add_port(actor, inp, PortDirection::In, 1);
        let name = fresh_name(&format!("{}_seq", self.actors[actor.0].name), |n| {
            names.contains(n)
        });
        names.insert(name.clone());
        Some(self.push_channel(name, sp, dp, 1))
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
            used_names: &mut self.used_channel_names,
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
        self.channels_at(actor, PortDirection::In)
    }

    /// Channels whose source is `actor`.
    pub fn output_channels(&self, actor: ActorId) -> impl Iterator<Item = ChannelId> + '_ {
        self.channels_at(actor, PortDirection::Out)
    }

    /// Channels on the `direction` ports of `actor`.
    fn channels_at(
        &self,
        actor: ActorId,
        direction: PortDirection,
    ) -> impl Iterator<Item = ChannelId> + '_ {
        let ports = self.actors[actor.0].ports.iter();
        ports
            .filter(move |p| p.direction == direction)
            .filter_map(|p| p.channel)
    }

    /// Checks structural well-formedness: unique actor names, unique channel
    /// names, unique port names per actor, positive rates on connected
    /// ports, and capacities not below the initial tokens. Unconnected ports
    /// are allowed (they are ignored by all analyses).
    pub fn validate(&self) -> Result<(), SdfError> {
        let dup = |what, name: String| Err(SdfError::DuplicateName { what, name });
        if let Some(n) = first_duplicate(self.actors.iter().map(|a| a.name.as_str())) {
            return dup("actor", n.to_string());
        }
        for a in &self.actors {
            if let Some(p) = first_duplicate(a.ports.iter().map(|p| p.name.as_str())) {
                return dup("port", format!("{}.{}", a.name, p));
            }
        }
        if let Some(n) = first_duplicate(self.channels.iter().map(|c| c.name.as_str())) {
            return dup("channel", n.to_string());
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

/// `base`, or else the first of `base1`, `base2`, ... that is not `taken`.
fn fresh_name(base: &str, taken: impl Fn(&str) -> bool) -> String {
    let mut name = base.to_string();
    let mut k = 1usize;
    while taken(&name) {
        name = format!("{base}{k}");
        k += 1;
    }
    name
}

/// The first name that occurs a second time.
fn first_duplicate<'a>(mut names: impl Iterator<Item = &'a str>) -> Option<&'a str> {
    let mut seen = HashSet::new();
    names.find(|n| !seen.insert(*n))
}
