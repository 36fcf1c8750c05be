-- Servers that removed the bot (the guild-remove event), and when. Their data
-- is kept for a re-invite (a re-join deletes the row) and purged by the daily
-- job once the grace period has passed (services/user_data.py says what goes).
CREATE TABLE guild_departures (
    guild_id    INTEGER PRIMARY KEY,
    left_at     TEXT    NOT NULL
);
