//! Benchmarks for tfdisco live in `benches/`; this library is empty.
