//! Integration tests for `pgnkit annotate-outcome`.
