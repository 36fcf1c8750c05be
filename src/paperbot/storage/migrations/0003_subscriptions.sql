-- Topic subscriptions: per server, per user, per topic.
-- kind 'topic': `topic` is a vocabulary id (config/topics.toml);
-- kind 'keyword': `topic` is the keyword's normalised key and `label` the
-- keyword as the user first wrote it.
CREATE TABLE subscriptions (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('topic', 'keyword')),
    topic       TEXT    NOT NULL CHECK (length(topic) BETWEEN 1 AND 200),
    label       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    UNIQUE (guild_id, user_id, kind, topic)
);

-- The digest reads a server's subscriptions grouped by topic.
CREATE INDEX subscriptions_guild_topic ON subscriptions (guild_id, kind, topic);
