"""The console: the terminal view and key source, the command language and scripted games."""
