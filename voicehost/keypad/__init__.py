"""The USB numeric keypad: key aggregation on the loop thread, the evdev adapter, the LED."""
