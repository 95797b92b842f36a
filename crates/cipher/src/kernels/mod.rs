//! The kernels: one module per implementation strategy.
//!
//! | kernel | how | constant-time |
//! |---|---|---|
//! | [`reference`] | FIPS-197's steps, literally | no (S-box table) |
//! | [`ttable`] | T-tables: SubBytes+ShiftRows+MixColumns as four lookups per column | **no** |
//! | [`ctime`] | S-box computed arithmetically, no table lookups | yes |

pub mod ctime;
pub mod reference;
pub mod ttable;

use crate::kernel::Kernel;

/// Every kernel compiled into this build, in registry order.
pub(crate) static ALL: &[&dyn Kernel] =
    &[&reference::Reference, &ttable::TTable, &ctime::ConstantTime];
