-- PostgreSQL twin of ../0007_feedback.sql.
CREATE TABLE paper_votes (
    guild_id    BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL,
    paper_key   TEXT    NOT NULL,
    value       INTEGER NOT NULL CHECK (value IN (-1, 1)),
    voted_at    TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, paper_key)
);

CREATE TABLE mutes (
    guild_id    BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('topic', 'keyword')),
    topic       TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, kind, topic)
);
