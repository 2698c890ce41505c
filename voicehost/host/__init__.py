"""The host: the one loop (input -> step() -> journal -> effects), its commands, the journal,
the replay and the protocol. It speaks to the world only through the ports."""
