-- PostgreSQL twin of ../0009_guild_departures.sql: servers that removed the
-- bot, kept for a re-invite and purged after the grace period.
CREATE TABLE guild_departures (
    guild_id    BIGINT  PRIMARY KEY,
    left_at     TEXT    NOT NULL
);
