"""The club database: SQLite in the data folder by default, or one PostgreSQL server for the
club's tables. Opened with SQLAlchemy 2, its schema made and migrated by Alembic (the migrations
in ``migrations/``), every game written in one transaction and at most once (its id is the
games' primary key: a second write of the same game changes nothing).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from voicehost.club.facts import GameFacts, SeatFacts
from voicehost.errors import VoicehostError
from voicehost.host import storage
from voicehost.host.names import key as name_key
from voicehost.notices import LOG_ONLY

log = logging.getLogger(__name__)

#: How often a migration that lost a race with another table's is looked at again.
MIGRATE_ATTEMPTS = 5
#: The newest migration; a database at it needs no Alembic run (Alembic loads in ~0.2 s).
HEAD = "0002"
MIGRATIONS = Path(__file__).resolve().parent / "migrations"


class ClubDatabaseError(VoicehostError):
    """The club database cannot be reached or used; the text says which and what to do."""


class RenameRefused(ClubDatabaseError):
    """A rename the club's records cannot take: ``code`` is the phrase book's ``club_rename_``
    sentence, ``params`` its values."""

    def __init__(self, code: str, **params: Any) -> None:
        super().__init__(f"rename refused: {code} {params}", phrase=f"club_rename_{code}", **params)
        self.code = code
        self.params = params


@dataclass(frozen=True)
class Renamed:
    """A person after a rename: the name shown, their games, the other names they played under."""

    name: str
    games: int
    aliases: list[str]


def url_for(database: str, data_dir: Path, base: Path | None = None) -> str:
    """The SQLAlchemy address of ``club.database`` ("" = SQLite in the data folder; a relative
    SQLite file is beside the config, in ``base``). A PostgreSQL address goes through pg8000, a
    driver in pure Python (nothing to compile on a Pi); the address in config.yaml stays the
    plain ``postgresql://`` one."""
    if not database:
        return f"sqlite:///{data_dir / 'club.sqlite'}"
    if database.startswith("sqlite:///") and base is not None:
        file = database.removeprefix("sqlite:///")
        if file and not Path(file).is_absolute():
            return f"sqlite:///{base / file}"
    for prefix in ("postgresql://", "postgres://"):
        if database.startswith(prefix):
            return "postgresql+pg8000://" + database[len(prefix) :]
    return database


def shown_url(url: str) -> str:
    """An address as it may be printed: without its password."""
    head, at, tail = url.rpartition("@")
    if not at or "://" not in head:
        return url
    scheme, _, user = head.partition("://")
    return f"{scheme}://{user.split(':')[0]}:***@{tail}"


def _private_file(path: Path) -> None:
    """The SQLite file owner-only, as the journals are (SQLite gives its -wal and -shm files
    the database's mode): a missing folder is made 0700, a missing file 0600, a wider one
    narrowed."""
    if not path.parent.exists():
        storage.private_folder(path.parent)
    with contextlib.suppress(FileExistsError):
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, storage.FILE_MODE)
        os.close(descriptor)  # an empty file is an empty SQLite database
    for file in (path, path.with_name(f"{path.name}-wal"), path.with_name(f"{path.name}-shm")):
        storage.narrow(file, storage.FILE_MODE)


@dataclass(frozen=True)
class Standing:
    """One player's line of the season."""

    name: str
    games: int
    wins: int
    points: float
    best_player: int
    by_role: dict[str, tuple[int, int]]  # role -> (games, wins)
    person: int | None = None  # the club's id of the person (a rename keeps it)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0


class ClubDatabase:
    """An open club database."""

    def __init__(self, url: str, *, timeout: float = 3.0) -> None:
        from sqlalchemy import create_engine, event
        from sqlalchemy.exc import ArgumentError
        from sqlalchemy.pool import NullPool

        self.url = url
        self.is_sqlite = url.startswith("sqlite")
        if self.is_sqlite:
            path = Path(url.removeprefix("sqlite:///").split("?", 1)[0])
            try:
                _private_file(path)
            except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
                raise self._unreachable(exc) from exc
            self.engine = create_engine(
                url, poolclass=NullPool, connect_args={"timeout": max(timeout, 30.0)}
            )

            @event.listens_for(self.engine, "connect")
            def _pragmas(connection: Any, _record: Any) -> None:
                # Python's sqlite3 commits DDL on its own, statement by statement: a kill in the
                # middle of the first migration would leave half a schema that no migration can
                # finish. Transactions are begun here instead (``_begin``), so a migration is
                # whole or not at all, like every game's record.
                connection.isolation_level = None
                cursor = connection.cursor()
                cursor.execute("PRAGMA journal_mode=WAL")  # readers never wait for a writer
                cursor.execute("PRAGMA synchronous=FULL")
                cursor.execute("PRAGMA foreign_keys=ON")
                cursor.close()

            @event.listens_for(self.engine, "begin")
            def _begin(connection: Any) -> None:
                # A migration takes the write lock at once: a second table starting at the same
                # moment waits for it, then finds the schema made.
                immediate = connection.get_execution_options().get("immediate", False)
                connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")
        else:
            try:
                self.engine = create_engine(
                    url, poolclass=NullPool, connect_args={"timeout": timeout}
                )
            except (ArgumentError, ValueError) as exc:  # an address config.yaml let through
                raise self._unreachable(exc) from exc

    def close(self) -> None:
        self.engine.dispose()

    # ---------------------------------------------------------------- schema

    def migrate(self) -> None:
        """Bring the schema to the newest migration (nothing to do when it is there)."""
        from sqlalchemy.exc import DBAPIError

        for attempt in range(MIGRATE_ATTEMPTS):
            try:
                if self.version() == HEAD:
                    return
                self._upgrade()
                return
            except DBAPIError as exc:
                # Another table may be migrating it this very moment (SQLite has no lock to
                # wait on for that): look again shortly, then give up.
                if attempt == MIGRATE_ATTEMPTS - 1:
                    raise self._unreachable(exc) from exc
                time.sleep(0.2 * (attempt + 1))

    def version(self) -> str | None:
        from sqlalchemy import text
        from sqlalchemy.exc import DBAPIError

        with self.engine.connect() as connection:
            try:
                row = connection.execute(text("SELECT version_num FROM alembic_version")).first()
            except DBAPIError:
                return None
        return str(row[0]) if row else None

    def _upgrade(self, target: str = "head") -> None:
        from alembic import command
        from alembic.config import Config
        from sqlalchemy import text

        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with (
            self.engine.connect().execution_options(immediate=True) as connection,
            connection.begin(),
        ):
            if not self.is_sqlite:  # two tables starting at once: one migrates, one waits
                connection.execute(text("SELECT pg_advisory_xact_lock(70250001)"))
            config.attributes["connection"] = connection
            command.upgrade(config, target)

    def _unreachable(self, exc: Exception) -> ClubDatabaseError:
        """The database cannot be used: said in the game's language (club_database_unreachable),
        with the driver's own words for why (they have no translation)."""
        from sqlalchemy.exc import DBAPIError

        cause = exc.orig if isinstance(exc, DBAPIError) else exc
        reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0][:200]
        url = shown_url(self.url)
        return ClubDatabaseError(
            f"the club database {url} cannot be used ({reason}); games wait in "
            "the outbox until it can (`voicehost club sync` sends them)",
            phrase="club_database_unreachable",
            url=url,
            reason=reason,
        )

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.engine.begin() as connection:
            yield connection

    # ---------------------------------------------------------------- writing

    def record(self, facts: GameFacts) -> bool:
        """Write one finished game, in one transaction; False when it was there already."""
        from sqlalchemy.exc import DBAPIError

        try:
            with self.engine.begin() as connection:
                return self._record(connection, facts)
        except DBAPIError as exc:
            raise self._unreachable(exc) from exc

    def _insert(self, table: Any) -> Any:
        from sqlalchemy.dialects import postgresql, sqlite

        return sqlite.insert(table) if self.is_sqlite else postgresql.insert(table)

    def _record(self, connection: Any, facts: GameFacts) -> bool:

        from voicehost.club import schema

        game = (
            self._insert(schema.games)
            .values(
                id=facts["id"], table_name=facts["table"], evening_id=facts["evening"],
                season=facts["season"], started=facts["started"], finished=facts["finished"],
                preset=facts["preset"], players=facts["players"], winner=facts["winner"],
                protocol=json.dumps(facts.get("protocol", {}), ensure_ascii=False),
            )
            .on_conflict_do_nothing(index_elements=["id"])
        )  # fmt: skip
        if connection.execute(game).rowcount == 0:
            return False
        if facts["evening"]:
            evening = self._insert(schema.evenings).values(
                id=facts["evening"], table_name=facts["table"], season=facts["season"],
                started=facts["started"],
            )  # fmt: skip
            connection.execute(evening.on_conflict_do_nothing(index_elements=["id"]))
        player_ids = self._people(connection, facts["seats"])
        connection.execute(
            schema.game_seats.insert(),
            [
                {
                    "game_id": facts["id"], "seat": seat["seat"],
                    "player_id": player_ids.get(seat["seat"]), "role": seat["role"],
                    "team": seat["team"], "won": seat["won"], "left_how": seat["left"],
                    "fouls": seat["fouls"], "best_player": seat["best_player"],
                    "best_move": seat["best_move"], "extra": seat["extra"],
                    "penalty": seat["penalty"], "points": seat["points"],
                }
                for seat in facts["seats"]
            ],
        )  # fmt: skip
        if facts["votes"]:
            connection.execute(
                schema.votes.insert(),
                [{"game_id": facts["id"], **vote} for vote in facts["votes"]],
            )
        return True

    def _people(self, connection: Any, seats: list[SeatFacts]) -> dict[int, int]:
        """The person of each named seat (seat -> the club's id): the one known by the seat's
        name; else, for a player renamed during the game, the one known by an earlier name (the
        latest first), shown under the new name from now on; else a new person. Every name
        given is kept as theirs; a rename never joins two people the club already knows apart.
        A few statements a game, whatever its size (a game's end pays for each)."""
        from sqlalchemy import bindparam, select, update

        from voicehost.club import schema

        names, players = schema.player_names, schema.players
        given = [(seat["seat"], seat["name"], seat.get("aliases") or []) for seat in seats]
        # An earlier name that is another seat's in this game is no rename: two names swapped.
        finals = {name_key(name) for _, name, _ in given if name}
        named = [
            (seat, name, [alias for alias in aliases if alias and name_key(alias) not in finals])
            for seat, name, aliases in given
            if name
        ]
        if not named:
            return {}

        def owners(keys: set[str]) -> dict[str, int]:
            query = select(names.c.key, names.c.player_id).where(names.c.key.in_(sorted(keys)))
            return {str(key): int(pid) for key, pid in connection.execute(query)}

        every = {name_key(text) for _, name, aliases in named for text in (name, *aliases)}
        known = owners(every)
        already = set(known)
        renamed: list[dict[str, Any]] = []
        new: list[dict[str, Any]] = []
        for _, name, aliases in named:
            if name_key(name) in known:
                continue
            earlier = (known.get(name_key(alias)) for alias in reversed(aliases))
            person = next((found for found in earlier if found is not None), None)
            if person is None:
                new.append({"key": name_key(name), "name": name})
            else:
                known[name_key(name)] = person
                renamed.append({"person": person, "new_key": name_key(name), "new_name": name})
        if renamed:
            rename = update(players).where(players.c.id == bindparam("person"))
            connection.execute(
                rename.values(key=bindparam("new_key"), name=bindparam("new_name")), renamed
            )
        if new:
            connection.execute(self._insert(players).on_conflict_do_nothing(), new)
            query = select(players.c.key, players.c.id).where(
                players.c.key.in_([row["key"] for row in new])
            )
            known.update({str(key): int(pid) for key, pid in connection.execute(query)})
        kept: dict[str, dict[str, Any]] = {}
        for _, name, aliases in named:
            person = known[name_key(name)]
            if name_key(name) in already:  # a known person: an earlier name is not theirs
                aliases = []
            for text in (name, *aliases):
                kept.setdefault(name_key(text), {"key": name_key(text), "player_id": person,
                                                 "name": text})  # fmt: skip
        connection.execute(self._insert(names).on_conflict_do_nothing(), list(kept.values()))
        final = owners({name_key(name) for _, name, _ in named})  # another table's, in a race
        return {seat: final[name_key(name)] for seat, name, _ in named}

    def rename(self, old: str, new: str, *, merge: bool = False) -> Renamed:
        """The person known as ``old`` is shown as ``new`` from now on, ``old`` kept as theirs.
        When ``new`` is another person's name, ``merge`` makes the two one (their games joined),
        unless they sat in one game. Raises ClubDatabaseError (``code`` says which refusal)."""
        from sqlalchemy import delete, func, select, update

        from voicehost.club import schema

        names, players, seats = schema.player_names, schema.players, schema.game_seats
        with self.engine.begin() as connection:

            def owner(name: str) -> int | None:
                query = select(names.c.player_id).where(names.c.key == name_key(name))
                found = connection.execute(query).scalar()
                return None if found is None else int(found)

            def games_of(person: int) -> int:
                query = select(func.count()).select_from(seats).where(seats.c.player_id == person)
                return int(connection.execute(query).scalar_one())

            person, other = owner(old), owner(new)
            if person is None:
                raise RenameRefused("unknown", name=old)
            if other is not None and other != person:
                if not merge:
                    raise RenameRefused("other", name=new, games=games_of(other))
                theirs = seats.alias("theirs")
                shared = (
                    select(func.count())
                    .select_from(seats.join(theirs, seats.c.game_id == theirs.c.game_id))
                    .where(seats.c.player_id == person, theirs.c.player_id == other)
                )
                if connection.execute(shared).scalar_one():
                    raise RenameRefused("same_game", name=old, other=new)
                connection.execute(
                    update(seats).where(seats.c.player_id == other).values(player_id=person)
                )
                connection.execute(
                    update(names).where(names.c.player_id == other).values(player_id=person)
                )
                connection.execute(delete(players).where(players.c.id == other))
            kept = self._insert(names).values(key=name_key(new), player_id=person, name=new)
            connection.execute(kept.on_conflict_do_nothing(index_elements=["key"]))
            connection.execute(
                update(players).where(players.c.id == person).values(key=name_key(new), name=new)
            )
            query = select(names.c.name).where(names.c.player_id == person).order_by(names.c.name)
            known = [str(row[0]) for row in connection.execute(query)]
            return Renamed(
                new, games_of(person), [n for n in known if name_key(n) != name_key(new)]
            )

    def person_name(self, name: str) -> str | None:
        """The name a person is shown under, found by any name they were written under."""
        from sqlalchemy import select

        from voicehost.club import schema

        names, players = schema.player_names, schema.players
        query = (
            select(players.c.name)
            .select_from(names.join(players, names.c.player_id == players.c.id))
            .where(names.c.key == name_key(name))
        )
        with self.engine.connect() as connection:
            found = connection.execute(query).scalar()
        return None if found is None else str(found)

    # ---------------------------------------------------------------- reading

    def has_game(self, identity: str) -> bool:
        from sqlalchemy import select

        from voicehost.club import schema

        with self.engine.connect() as connection:
            query = select(schema.games.c.id).where(schema.games.c.id == identity)
            return connection.execute(query).first() is not None

    def count_games(self, season: str | None = None) -> int:
        from sqlalchemy import func, select

        from voicehost.club import schema

        query = select(func.count()).select_from(schema.games)
        if season:
            query = query.where(schema.games.c.season == season)
        with self.engine.connect() as connection:
            return int(connection.execute(query).scalar_one())

    def seasons(self) -> list[str]:
        from sqlalchemy import select

        from voicehost.club import schema

        with self.engine.connect() as connection:
            rows = connection.execute(select(schema.games.c.season).distinct())
            return sorted(str(row[0]) for row in rows)

    def standings(self, season: str | None = None) -> list[Standing]:
        """Every person's season (by the club's id: a player renamed is one), under the name
        they are shown by: points, games, wins, best-player marks, by role."""
        from sqlalchemy import case, func, select

        from voicehost.club import schema

        seats, games, players = schema.game_seats, schema.games, schema.players
        won = func.sum(case((seats.c.won, 1), else_=0))
        best = func.sum(case((seats.c.best_player, 1), else_=0))
        query = (
            select(
                players.c.id, players.c.name, seats.c.role, func.count(), won,
                func.sum(seats.c.points), best,
            )
            .select_from(seats.join(players, seats.c.player_id == players.c.id))
            .group_by(players.c.id, players.c.name, seats.c.role)
        )  # fmt: skip
        if season:
            query = query.join(games, seats.c.game_id == games.c.id).where(games.c.season == season)
        totals: dict[int, dict[str, Any]] = {}
        with self.engine.connect() as connection:
            for pid, name, role, count, wins, points, best_marks in connection.execute(query):
                line = totals.setdefault(
                    pid, {"name": name, "games": 0, "wins": 0, "points": 0.0, "best": 0, "by": {}}
                )
                line["games"] += int(count)
                line["wins"] += int(wins or 0)
                line["points"] += float(points or 0.0)
                line["best"] += int(best_marks or 0)
                line["by"][role or "?"] = (int(count), int(wins or 0))
        rows = [
            Standing(
                name=line["name"], games=line["games"], wins=line["wins"],
                points=round(line["points"], 4), best_player=line["best"], by_role=line["by"],
                person=pid,
            )
            for pid, line in totals.items()
        ]  # fmt: skip
        rows.sort(key=lambda row: (-row.points, -row.wins, row.games, row.name.casefold()))
        return rows

    def series(self, name: str, season: str | None = None) -> list[tuple[str, float]]:
        """A person's games of the season in order, found by any of their names: (finished,
        points of that game)."""
        from sqlalchemy import select

        from voicehost.club import schema

        seats, games, names = schema.game_seats, schema.games, schema.player_names
        query = (
            select(games.c.finished, seats.c.points)
            .select_from(
                seats.join(games, seats.c.game_id == games.c.id).join(
                    names, seats.c.player_id == names.c.player_id
                )
            )
            .where(names.c.key == name_key(name))
            .order_by(games.c.finished, games.c.id)
        )
        if season:
            query = query.where(games.c.season == season)
        with self.engine.connect() as connection:
            return [(str(row[0]), float(row[1])) for row in connection.execute(query)]


def open_database(url: str, *, timeout: float = 3.0) -> ClubDatabase:
    """Open and migrate the club database; raises ClubDatabaseError when it cannot be used."""
    database = ClubDatabase(url, timeout=timeout)
    try:
        database.migrate()
    except ClubDatabaseError:
        database.close()
        raise
    except Exception as exc:  # noqa: BLE001 - a driver's own error for an absent server
        database.close()
        log.info("club database %s: %s", shown_url(url), exc, extra=LOG_ONLY)
        raise database._unreachable(exc) from exc
    return database
