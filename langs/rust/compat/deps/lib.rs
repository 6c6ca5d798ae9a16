// Only the dependencies are wanted: see Cargo.toml.
