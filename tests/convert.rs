//! Integration tests for `pgnkit convert`.
