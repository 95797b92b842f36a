//! The design graph: AES actors, the edges between them, and how often each
//! fires per block.
//!
//! Every actor fires `n` times per block: once for an actor of an unrolled
//! round, `Nr − 1` times for the round loop of a non-unrolled design. Every
//! edge names the firings of its producer that write it and the firings of
//! its consumer that read it (a cyclo-static pattern: a loop's first core
//! reads the new block in firing 0 and the fed-back block in firings
//! 1..n; the loop's last core writes the feedback in firings 0..n−1 and the
//! exit in firing n−1). An edge carries a part of the state, of a round key,
//! the key-schedule window or one key word.

use aesflow_cipher::KeySize;

use crate::kinds::{Part, Prim, key_schedule_delay, kind_name, steps_delay, steps_imem};

/// What an actor does.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A cipher actor: AES steps applied in order.
    Cipher(Vec<Prim>),
    /// KeySubWord (KeyRotWord folded in where FIPS-197 needs it, and Rcon).
    KeySubWord,
    /// KeySchedule: KeyXOR of the window with the substituted word, emits a
    /// round key, the next window and the next word to substitute.
    KeySchedule,
    /// Off-array input of plaintext blocks.
    PlainSource,
    /// Off-array input of the cipher key (one copy per block: online key
    /// expansion recomputes the round keys for every block).
    KeySource,
    /// Off-array output of ciphertext blocks.
    Sink,
}

impl Role {
    /// The kind label (colours the map, names the core).
    pub fn kind(&self) -> String {
        match self {
            Role::Cipher(s) => kind_name(s),
            Role::KeySubWord => "KeySubWord".into(),
            Role::KeySchedule => "KeySchedule".into(),
            Role::PlainSource => "PlainSource".into(),
            Role::KeySource => "KeySource".into(),
            Role::Sink => "Sink".into(),
        }
    }
    /// An actor that runs on a core.
    pub fn is_core(&self) -> bool {
        matches!(self, Role::Cipher(_) | Role::KeySubWord | Role::KeySchedule)
    }
    /// A key-expansion core.
    pub fn is_key(&self) -> bool {
        matches!(self, Role::KeySubWord | Role::KeySchedule)
    }
}

/// What an edge carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Payload {
    /// A part of the state (whole, columns or bytes; see [`Part`] for how
    /// it travels).
    State(Part),
    /// A part of a round key (word-aligned).
    Key(Part),
    /// The key-schedule window: the last `Nk` words (2·Nk 16-bit words).
    Window,
    /// One 32-bit key word (two 16-bit words): to or from KeySubWord.
    SubWord,
}

/// Data-memory layout of one block slot: state, round key, window, key word.
pub const SLOT_WORDS: usize = 34;
/// Offset of the round key in a slot.
pub const KEY_BASE: usize = 8;
/// Offset of the key-schedule window in a slot.
pub const WINDOW_BASE: usize = 16;
/// Offset of the key word in a slot.
pub const SUBWORD_BASE: usize = 32;
/// Offset of the 16 landing words of a byte-level state part (one per
/// state byte, see [`Part`]'s transport rule). Cipher cores never hold a
/// key-schedule window, so they use the window's 16 words for this
/// ([`crate::validate`] rejects a core that would need both).
pub const BYTE_BASE: usize = WINDOW_BASE;

impl Payload {
    /// The state part carried, if a part of the state.
    pub fn state(self) -> Option<Part> {
        match self {
            Payload::State(c) => Some(c),
            _ => None,
        }
    }
    /// The round-key part carried, if a part of a round key.
    pub fn key(self) -> Option<Part> {
        match self {
            Payload::Key(c) => Some(c),
            _ => None,
        }
    }
    /// Data-memory word addresses (within a slot) the payload occupies.
    pub fn addrs(self, nk: usize) -> Vec<usize> {
        match self {
            Payload::State(c) => c.carried().into_iter().map(|(_, a)| a).collect(),
            Payload::Key(c) => c.words().map(|w| KEY_BASE + w).collect(),
            Payload::Window => (WINDOW_BASE..WINDOW_BASE + 2 * nk).collect(),
            Payload::SubWord => vec![SUBWORD_BASE, SUBWORD_BASE + 1],
        }
    }
    /// 16-bit words per token (a byte-level state part: one per byte).
    pub fn words(self, nk: usize) -> usize {
        self.addrs(nk).len()
    }
    /// Label for DOT and the description format.
    pub fn label(self) -> String {
        match self {
            Payload::State(c) => format!("state[{c}]"),
            Payload::Key(c) => format!("key[{c}]"),
            Payload::Window => "window".into(),
            Payload::SubWord => "word".into(),
        }
    }
}

/// An actor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Actor {
    /// Unique name.
    pub name: String,
    /// What it does.
    pub role: Role,
    /// Firings per block.
    pub n: u32,
    /// AES round of firing 0 (firing `p` works on round `round0 + p`); for
    /// a fused actor, the round of its AddRoundKey step.
    pub round0: u32,
}

/// An edge.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge {
    /// Producer.
    pub src: usize,
    /// Consumer.
    pub dst: usize,
    /// What it carries.
    pub payload: Payload,
    /// Producer firings `[a, b)` that write one token each.
    pub src_ph: (u32, u32),
    /// Consumer firings `[a, b)` that read one token each.
    pub dst_ph: (u32, u32),
}

/// A design: an AES engine as a dataflow graph.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Design {
    /// Name.
    pub name: String,
    /// Key size (sets Nr and Nk).
    pub key: KeySize,
    /// Blocks the round loops hold at once (1 except Small, see its docs).
    pub interleave: u32,
    /// Actors.
    pub actors: Vec<Actor>,
    /// Edges.
    pub edges: Vec<Edge>,
}

impl Design {
    /// An empty design.
    pub fn new(name: &str, key: KeySize) -> Self {
        Design {
            name: name.into(),
            key,
            interleave: 1,
            actors: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// Add an actor, returning its index.
    pub fn add(&mut self, name: impl Into<String>, role: Role, n: u32, round0: u32) -> usize {
        self.actors.push(Actor {
            name: name.into(),
            role,
            n,
            round0,
        });
        self.actors.len() - 1
    }

    /// Add a cipher actor firing once per block.
    pub fn cipher(&mut self, name: impl Into<String>, steps: Vec<Prim>, round: u32) -> usize {
        self.add(name, Role::Cipher(steps), 1, round)
    }

    /// Add an edge with explicit firing ranges.
    pub fn connect(
        &mut self,
        src: usize,
        dst: usize,
        payload: Payload,
        src_ph: (u32, u32),
        dst_ph: (u32, u32),
    ) {
        self.edges.push(Edge {
            src,
            dst,
            payload,
            src_ph,
            dst_ph,
        });
    }

    /// Add an edge used in every firing of both ends (which must fire
    /// equally often).
    pub fn link(&mut self, src: usize, dst: usize, payload: Payload) {
        let n = self.actors[src].n;
        self.connect(src, dst, payload, (0, n), (0, self.actors[dst].n));
    }

    /// Actor index by name.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.actors.iter().position(|a| a.name == name)
    }

    /// Execution delay of one firing of actor `a`.
    pub fn delay(&self, a: usize) -> u32 {
        match &self.actors[a].role {
            Role::Cipher(s) => steps_delay(s),
            Role::KeySubWord => crate::kinds::KEY_SUB_WORD_DELAY,
            Role::KeySchedule => key_schedule_delay(self.key.nk()),
            _ => 0,
        }
    }

    /// Instruction memory of actor `a` in percent.
    pub fn imem(&self, a: usize) -> u32 {
        match &self.actors[a].role {
            Role::Cipher(s) => steps_imem(s),
            Role::KeySubWord => crate::kinds::KEY_SUB_WORD_IMEM,
            Role::KeySchedule => crate::kinds::KEY_SCHEDULE_IMEM,
            _ => 0,
        }
    }

    /// Cycles actor `a` executes per block (`n` × delay): the bound a core
    /// puts on throughput.
    pub fn load(&self, a: usize) -> u64 {
        u64::from(self.actors[a].n) * u64::from(self.delay(a))
    }

    /// The largest per-block load of any actor, with the actor.
    pub fn bottleneck(&self) -> (u64, usize) {
        (0..self.actors.len())
            .map(|a| (self.load(a), a))
            .max_by_key(|&(l, a)| (l, std::cmp::Reverse(a)))
            .unwrap_or((0, 0))
    }

    /// Edges into `a`.
    pub fn ins(&self, a: usize) -> impl Iterator<Item = (usize, &Edge)> {
        self.edges
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.dst == a)
    }

    /// Edges out of `a`.
    pub fn outs(&self, a: usize) -> impl Iterator<Item = (usize, &Edge)> {
        self.edges
            .iter()
            .enumerate()
            .filter(move |(_, e)| e.src == a)
    }

    /// Every actor's in- and out-edges, indexed once: for walks over all
    /// actors, where [`Design::ins`] / [`Design::outs`] (a scan of the
    /// edges each) would make the walk quadratic in the design's size.
    pub fn adjacency(&self) -> Adjacency {
        let mut ins = vec![Vec::new(); self.actors.len()];
        let mut outs = vec![Vec::new(); self.actors.len()];
        for (i, e) in self.edges.iter().enumerate() {
            ins[e.dst].push(i);
            outs[e.src].push(i);
        }
        Adjacency { ins, outs }
    }

    /// True if the design has key-expansion actors (online key expansion).
    pub fn is_online(&self) -> bool {
        self.actors.iter().any(|a| a.role.is_key())
    }

    /// Remove actors for which `keep` is false, and their edges.
    pub fn retain_actors(&mut self, keep: impl Fn(&Actor) -> bool) {
        let mut map = vec![usize::MAX; self.actors.len()];
        let mut actors = Vec::new();
        for (i, a) in self.actors.iter().enumerate() {
            if keep(a) {
                map[i] = actors.len();
                actors.push(a.clone());
            }
        }
        self.edges
            .retain(|e| map[e.src] != usize::MAX && map[e.dst] != usize::MAX);
        for e in &mut self.edges {
            e.src = map[e.src];
            e.dst = map[e.dst];
        }
        self.actors = actors;
    }

    /// Checks the design can be compiled and run: see [`crate::validate`].
    pub fn validate(&self) -> Result<(), crate::Error> {
        crate::validate::validate(self)
    }
}

/// The edge indices into and out of each actor of a [`Design`], in edge
/// order (built by [`Design::adjacency`]; stale once the design's edges
/// change).
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    ins: Vec<Vec<usize>>,
    outs: Vec<Vec<usize>>,
}

impl Adjacency {
    /// Edges into `a`, like [`Design::ins`].
    pub fn ins<'d>(&self, d: &'d Design, a: usize) -> impl Iterator<Item = (usize, &'d Edge)> {
        self.ins[a].iter().map(move |&i| (i, &d.edges[i]))
    }

    /// Edges out of `a`, like [`Design::outs`].
    pub fn outs<'d>(&self, d: &'d Design, a: usize) -> impl Iterator<Item = (usize, &'d Edge)> {
        self.outs[a].iter().map(move |&i| (i, &d.edges[i]))
    }
}
