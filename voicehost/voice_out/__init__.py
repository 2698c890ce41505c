"""Voice out: speech synthesis, the audio cache, voice packs, the mixer, cues and masking."""
