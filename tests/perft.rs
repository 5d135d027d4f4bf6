//! Integration tests for `pgnkit perft`.
