//! Integration tests for `pgnkit cli`.
