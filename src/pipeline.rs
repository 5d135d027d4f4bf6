//! Ordered parallel streaming, generic over the work: knows no chess.
