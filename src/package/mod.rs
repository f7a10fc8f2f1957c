//! The nav package on disk.
