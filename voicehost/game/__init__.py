"""The pure rules of the game: state, inputs, effects and step(). No I/O, no clock, no threads."""
