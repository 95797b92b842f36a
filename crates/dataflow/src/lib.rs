//! aesflow dataflow (work in progress).
