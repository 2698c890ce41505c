"""Voice in: the stop-word rule (pure), the models, the Vosk and microphone adapters."""
