//! Import and export of SDF3's XML format (`<sdf3 type="sdf">`).
//!
//! SDF3 (Stuijk, Geilen, Basten, *SDF³: SDF For Free*, ACSD 2006) stores a
//! timed SDF graph as
//!
//! ```xml
//! <sdf3 type="sdf" version="1.0">
//!   <applicationGraph name="g">
//!     <sdf name="g" type="G">
//!       <actor name="a" type="A">
//!         <port name="p0" type="out" rate="2"/>
//!       </actor>
//!       ...
//!       <channel name="c" srcActor="a" srcPort="p0" dstActor="b" dstPort="p0"
//!                initialTokens="1"/>
//!     </sdf>
//!     <sdfProperties>
//!       <actorProperties actor="a">
//!         <processor type="p" default="true"><executionTime time="10"/></processor>
//!       </actorProperties>
//!       <channelProperties channel="c">
//!         <tokenSize sz="4"/><bufferSize sz="8"/>
//!       </channelProperties>
//!     </sdfProperties>
//!   </applicationGraph>
//! </sdf3>
//! ```
//!
//! ## Reading exactly as SDF3 reads
//!
//! [`from_xml`] follows SDF3's own reader (its `SDFport::construct`,
//! `SDFchannel::construct` and `TimedSDFactor::setProperties`), including
//! its corner cases, so that analyses give SDF3's figures:
//!
//! * every port needs `name`, `type` (`in`/`out`) and `rate`; a missing
//!   `rate` is an error (SDF3 throws "missing port rate");
//! * an actor's execution time is that of its **default processor**: the
//!   *last* `<processor>` carrying a `default` attribute (whatever its
//!   value — SDF3 tests for presence), across all `<actorProperties>` of the
//!   actor; with no processor marked default the execution time is **0**;
//!   a default processor without `<executionTime>` gives SDF3's
//!   `SDFTIME_MAX`, 4294967295 ([`SDF3_TIME_MAX`]); two processors of the
//!   same type on one actor are an error;
//! * numbers are read like C's `strtoul(s, 0, 0)`: decimal, `0x` hex or
//!   leading-`0` octal, surrounding blanks allowed; unlike SDF3, trailing
//!   garbage or a sign is an error instead of being silently dropped;
//! * `<bufferSize sz>` becomes the channel capacity, `<tokenSize sz>` the
//!   token size (a later `<channelProperties>` for the same channel
//!   overrides an earlier one); other properties are ignored.
//!
//! Every deviation SDF3 accepts silently is reported in
//! [`Sdf3Import::warnings`]. Malformed input yields [`SdfError::Sdf3`](crate::SdfError::Sdf3)
//! with a line and column, never a panic; the nesting depth is bounded
//! before parsing ([`ReadOptions::max_depth`]).
//!
//! Plain documents (no entity or character references, CDATA, DTD or
//! processing instructions, as SDF3 writes them) are read by a one-pass
//! scan into a compact element tree; any other document, and every
//! malformed one, goes through a full XML parser, with the same result and
//! the parser's error messages. A graph of 10^5 actors is read and
//! analysed by `aesflow sdf` in about half a second. Documents of 4 GiB or
//! more are refused.
//!
//! ## Writing
//!
//! [`to_xml`] writes the graph; [`to_xml_with`] can add a self-edge with
//! one token to every actor ([`WriteOptions::sequential_actors`]), which is
//! how a graph whose actors are sequential processes (this crate's default
//! semantics) keeps its period under SDF3's auto-concurrency semantics.

mod dom;
mod read;
mod scan;
mod write;

pub use read::{ReadOptions, SDF3_TIME_MAX, Sdf3Import, from_xml, from_xml_with};
pub use write::{WriteOptions, to_xml, to_xml_with};
