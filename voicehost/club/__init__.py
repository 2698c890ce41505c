"""The club's life around the games: the evening, the season's records, standings and charts.

Layer 5, beside the adapters: it reads what the host wrote (journals, protocols, names) and
keeps the club's records in a database (SQLite by default, one PostgreSQL server for a club with
several tables), through an outbox so that a game's end never waits for a server. docs/CLUB.md.
"""
