"""The demo shortens long silences as the game's timeline is rendered, block by block: what it
writes must be exactly what shortening the whole recording at once gives (the same samples
kept, the same cuts), whatever the blocks' sizes."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from voicehost.clips import Clip, SilenceSqueezer, compress_silences

RATE = 8000

stretches = st.lists(
    st.tuples(st.booleans(), st.integers(0, 3 * RATE), st.integers(0, 2**16)),
    min_size=1,
    max_size=8,
)


@settings(max_examples=150, deadline=None)
@given(stretches, st.sampled_from([0.0, 0.25, 1.5]), st.lists(st.integers(1, 4000), min_size=1))
def test_squeezing_block_by_block_keeps_what_squeezing_the_whole_keeps(parts, longest, blocks):
    audio = np.concatenate(
        [
            np.random.default_rng(seed).standard_normal(length).astype(np.float32) * 0.1
            if loud
            else np.zeros(length, dtype=np.float32)
            for loud, length, seed in parts
        ]
    )
    if len(audio) == 0:
        return
    whole, cuts = compress_silences(Clip(audio, RATE), longest)
    squeezer = SilenceSqueezer(RATE, longest)
    kept, position, turn = [], 0, 0
    while position < len(audio):
        size = blocks[turn % len(blocks)]
        kept.append(squeezer.feed(audio[position : position + size]))
        position, turn = position + size, turn + 1
    kept.append(squeezer.finish())
    assert np.array_equal(np.concatenate(kept), whole.samples)
    if len(audio) >= squeezer.window:  # (a whole clip under 10 ms gets a cut past its end)
        assert squeezer.cuts == cuts
    assert squeezer.frames == len(audio)
