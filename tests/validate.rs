//! Integration tests for `pgnkit validate`.
