"""Adapters: real devices and engines (espeak-ng, sounddevice, Vosk, evdev, terminal) and fakes."""
