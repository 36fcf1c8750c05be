"""Which servers a bot process owns when the bot runs as several processes.

Discord puts a server on shard `(guild_id >> 22) % shard_count`; a process
running shards `ids` schedules, posts and recovers digests only for servers
on those shards, so no two processes ever work on one server's digest.
"""

from __future__ import annotations

from dataclasses import dataclass


def shard_of(guild_id: int, shard_count: int) -> int:
    """Discord's shard for a server (developer docs, "Sharding")."""
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardSet:
    """The shards one process runs: `ids` out of `count` (all by default)."""

    ids: tuple[int, ...] = (0,)
    count: int = 1

    def __post_init__(self) -> None:
        if self.count < 1:
            raise ValueError("shard count must be at least 1")
        if not self.ids:
            raise ValueError("a process runs at least one shard")
        bad = [i for i in self.ids if not 0 <= i < self.count]
        if bad:
            raise ValueError(f"shards {bad} are not in 0..{self.count - 1}")
        if len(set(self.ids)) != len(self.ids):
            raise ValueError("a shard is listed twice")

    @property
    def is_everything(self) -> bool:
        return len(self.ids) == self.count

    def owns(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    def describe(self) -> str:
        return f"shards {','.join(map(str, self.ids))} of {self.count}"


def parse_shard_ids(text: str) -> tuple[int, ...]:
    """`"0,1"` or `"0-3"` (or a mix) as shard ids; ValueError with the reason."""
    ids: list[int] = []
    for part in (p.strip() for p in text.split(",")):
        low, dash, high = part.partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"{part!r} is not a shard number or range like 0-3")
        ids.extend(range(int(low), int(high) + 1) if dash else [int(low)])
    return tuple(ids)
