"""How the stop word is heard: every tunable of the rule and the Listener, with its one default.

``config.py`` takes the ``listener`` keys' defaults from here, the Listener
(``voice_in/vosk_listener.py``) and the rule (``voice_in/rule.py``) read it, and nothing else
writes a default down. Why each value was chosen, and on which takes: docs/HEARING.md.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HearingTuning:
    """How a stop word said on its own is told from the end of a sentence."""

    silence_seconds: float = 0.6
    """The speaker's quiet after the word before the speech ends (seconds)."""
    min_confidence: float = 0.0
    """A stop word heard with less confidence than this (Vosk's 0..1) ends nothing."""
    room_margin_db: float = 12.0
    """Voice this much quieter than the speaker is the room's, not the speaker's (dB)."""
    room_floor_db: float = 1.0
    """In steady rumble, the VAD's last frames under this much over the room's treble are its
    lingering, not the voice (dB; 0: not asked)."""
    quiet_before_seconds: float = 0.25
    """The speaker's quiet before the word: less, and the word ends a sentence (seconds)."""
    join_seconds: float = 0.2
    """Gaps in the voice shorter than this are inside a word, not between words (seconds)."""
    shortest_word_seconds: float = 0.2
    """Voice shorter than this is a click or a cough, not a word (seconds)."""
    longest_word_seconds: float = 1.5
    """Voice longer than this is more than a stop word, even said slowly (seconds)."""
    fastest_sounds_per_second: float = 22.0
    """A stop word heard in less voice than its sounds take at this rate was something shorter."""
    slowest_sounds_per_second: float = 3.0
    """A stop word heard in more voice than its sounds take at this rate was more than it."""
    sure_confidence: float = 1.01
    """Below this confidence a stop word needs the referees too (above 1: every one does)."""
    edge_seconds: float = 0.03
    """A stop word this close to the start of cleaned audio is the cleaning's residue (seconds)."""
    unheard_seconds: float = 0.6
    """More of the voice than this with no word heard in it: more was said (seconds)."""
    onset_db: float = 20.0
    """A frame this much louder than the quietest just before it is a voice beginning (dB)."""
    tail_seconds: float = 0.0
    """How much of the word the first quiet frame may hold (seconds; set from the VAD)."""
    wary_silence_seconds: float = 1.2
    """The quiet after a speech's first words or a short pause before it ends (seconds)."""
    wary_before_seconds: float = 0.35
    """Quiet before a stretch shorter than this is a short pause (seconds)."""
    agreeing_hearings: int = 3
    """Hearings that each hear the stop word alone, for one referee to be enough (0: never)."""
    backed_sounds_per_second: float = 15.0
    """The fastest pace of a stop word that ``agreeing_hearings`` may end with one referee."""
    echo_tail_seconds: float = 0.3
    """After the host stops speaking, the microphone stays ignored this long (seconds)."""
    vad: str = "auto"
    """The voice-activity detector: auto, silero or webrtc."""
    vad_threshold: float = 0.5
    """The VAD's probability over which a frame is voice."""
    denoise: float = 2.0
    """The second look also hears the audio with this many times the room's noise taken out."""
    denoise_below_db: float = 30.0
    """A room whose steady noise is less than this under the speaker's voice is noisy (dB)."""
    denoise_stronger: float = 2.0
    """In a noisy room, a third hearing cleaned this much more than ``denoise`` (0: none)."""
    denoise_smooth: float = 2.0
    """In a noisy room, a fourth hearing cleaned by a gain that follows the voice (0: none)."""
    referee_doubt: float = 1.0
    """In a quiet room, a hearing scored within this much of the best is not ruled out."""


HEARING = HearingTuning()
"""The defaults."""
