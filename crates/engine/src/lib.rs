//! aesflow engine (work in progress).
