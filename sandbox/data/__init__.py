"""The demo world: its fixed cast, the seeded generator, and the pure outcome function."""
