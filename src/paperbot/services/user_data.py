"""What paperbot keeps about a reader in a server ("my data"), and about a server.

`USER_DATA` lists every kind of data a reader owns, one line each: a new
feature that stores something about a reader adds its `DataKind` there, and
`/mydata`, its export, its delete and `paperbot forget` cover it from then
on. `SERVER_DATA` lists what belongs to the server itself; a server that
removed the bot loses both, `GRACE` after it left (see `purge_departed`).

Posting history (`digest_posts`, and with it `digest_posted`) is server data:
it names channels, message ids and paper keys, no reader, so forgetting a
reader leaves it; purging a departed server removes it with the rest, and a
re-invite after the grace period starts from a clean slate.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from paperbot.core.library_export import saved_records
from paperbot.storage import saved, user_data
from paperbot.storage.backend import Database
from paperbot.storage.user_data import OwnedTable

log = logging.getLogger(__name__)

#: How long a server's data is kept after the bot was removed from it.
GRACE = timedelta(days=30)

Exporter = Callable[[Database, int, int], Awaitable[list[dict[str, Any]]]]


@dataclass(frozen=True, slots=True)
class DataKind:
    """One kind of data a reader owns in a server: `name` keys the export and
    the CLI, `label` is what /mydata shows (English; the library cog's ZH_CN
    translates it). `export` replaces the raw rows when they would say little
    on their own (a paper key -> the paper)."""

    name: str
    label: str
    table: OwnedTable
    export: Exporter | None = None


async def _export_saved(db: Database, guild_id: int, user_id: int) -> list[dict[str, Any]]:
    return saved_records(await saved.list_saved(db, guild_id, user_id))


# Everything paperbot stores about a reader in a server: one line per kind.
USER_DATA: tuple[DataKind, ...] = (
    DataKind("subscriptions", "Topic subscriptions", OwnedTable("subscriptions", "created_at")),
    DataKind("saved_papers", "Saved papers", OwnedTable("saved_papers", "saved_at"), _export_saved),
    DataKind("votes", "Votes", OwnedTable("paper_votes", "voted_at")),
    DataKind("mutes", "Mutes", OwnedTable("mutes", "created_at")),
    # The personal DM digest follows the reader across servers.
    DataKind(
        "personal_digest",
        "Personal digest setting",
        OwnedTable("personal_digest_settings", "user_id", per_guild=False),
    ),
    DataKind(
        "personal_digests",
        "Personal digests sent",
        OwnedTable("personal_posts", "id", per_guild=False),
    ),
    DataKind(
        "personal_received",
        "Papers received by DM",
        OwnedTable("personal_received", "post_id", per_guild=False),
    ),
)

# What belongs to the server, not to one reader: removed only by a purge.
SERVER_DATA: tuple[OwnedTable, ...] = (
    OwnedTable("digest_settings", order_by="guild_id", per_user=False),
    OwnedTable("digest_posts", order_by="id", per_user=False),
)


@dataclass(frozen=True, slots=True)
class Departure:
    guild_id: int
    left_at: datetime
    purge_after: datetime
    rows: dict[str, int]

    def due(self, now: datetime) -> bool:
        return now >= self.purge_after


class UserDataService:
    def __init__(self, db: Database, kinds: tuple[DataKind, ...] = USER_DATA) -> None:
        self._db = db
        self.kinds = kinds

    async def counts(self, guild_id: int, user_id: int) -> dict[str, int]:
        """Rows per kind of data this reader has in this server."""
        return {
            kind.name: await user_data.count_rows(self._db, kind.table, guild_id, user_id)
            for kind in self.kinds
        }

    def labelled(self, counts: dict[str, int]) -> list[tuple[str, int]]:
        """(label, count) per kind, in registry order, for the renderers."""
        return [(kind.label, counts.get(kind.name, 0)) for kind in self.kinds]

    async def export(self, guild_id: int, user_id: int) -> dict[str, list[dict[str, Any]]]:
        """Everything this reader has in this server, per kind, as JSON-ready records."""
        exported: dict[str, list[dict[str, Any]]] = {}
        for kind in self.kinds:
            if kind.export is not None:
                exported[kind.name] = await kind.export(self._db, guild_id, user_id)
            else:
                exported[kind.name] = await user_data.export_rows(
                    self._db, kind.table, guild_id, user_id
                )
        return exported

    async def forget(self, guild_id: int, user_id: int) -> dict[str, int]:
        """Delete everything about this reader in this server, in one
        transaction; how many rows of each kind went."""
        removed = await user_data.delete_rows(
            self._db, [kind.table for kind in self.kinds], guild_id, user_id
        )
        log.info("forgot user %s in guild %s: %s", user_id, guild_id, removed)
        by_table = {kind.table.table: kind.name for kind in self.kinds}
        return {by_table[table]: count for table, count in removed.items()}

    # ------------------------------------------------------------ servers

    def _server_tables(self) -> list[OwnedTable]:
        # A reader's cross-server setting (per_guild=False) is not the server's to purge.
        return [*(k.table for k in self.kinds if k.table.per_guild), *SERVER_DATA]

    async def guild_left(self, guild_id: int, now: datetime) -> None:
        """The bot was removed from this server: keep its data for `GRACE`."""
        await user_data.record_departure(self._db, guild_id, now)
        log.info("left guild %s: its data is purged after %s", guild_id, now + GRACE)

    async def guild_joined(self, guild_id: int) -> bool:
        """The bot is in this server (again): cancel a pending purge."""
        cancelled = await user_data.cancel_departure(self._db, guild_id)
        if cancelled:
            log.info("back in guild %s: its data is kept", guild_id)
        return cancelled

    async def reconcile(self, present: set[int], now: datetime) -> tuple[set[int], set[int]]:
        """At start-up: the bot is in the servers `present` and nowhere else.

        A server holding data that is not among them removed the bot while it
        was down (no event came): its departure is recorded now. A pending
        departure of a server that is among them is cancelled (re-invited
        while down). Returns (servers recorded as gone, servers back).
        """
        pending = {d.guild_id for d in await self.departures()}
        holding = await user_data.guilds_with_rows(self._db, self._server_tables())
        gone = holding - present - pending
        back = pending & present
        for guild_id in sorted(gone):
            await self.guild_left(guild_id, now)
        for guild_id in sorted(back):
            await self.guild_joined(guild_id)
        return gone, back

    async def departures(self) -> list[Departure]:
        """Servers that removed the bot, with what they still hold."""
        found = []
        for guild_id, left_at in await user_data.departures(self._db):
            rows = {
                table.table: await user_data.count_rows(self._db, table, guild_id, None)
                for table in self._server_tables()
            }
            found.append(Departure(guild_id, left_at, left_at + GRACE, rows))
        return found

    async def purge_departed(self, now: datetime, *, dry_run: bool = False) -> list[Departure]:
        """Delete the data of every server that left more than `GRACE` ago
        (each server in one transaction); the departures purged (or, with
        `dry_run`, that would be)."""
        due = [d for d in await self.departures() if d.due(now)]
        if dry_run:
            return due
        purged = []
        for departure in due:
            # Checked again inside the delete: a re-join meanwhile keeps the data.
            removed = await user_data.purge_guild(
                self._db, self._server_tables(), departure.guild_id, now - GRACE
            )
            if removed is None:
                continue
            log.info(
                "purged guild %s (left %s): %s", departure.guild_id, departure.left_at, removed
            )
            purged.append(replace(departure, rows=removed))
        return purged
