-- Reader feedback: 👍/👎 votes and mutes, per server and user.
-- Papers are named by their stable key with no reference to `papers` (like
-- saved papers and digest history): no corpus change can remove a vote.
CREATE TABLE paper_votes (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    paper_key   TEXT    NOT NULL,
    value       INTEGER NOT NULL CHECK (value IN (-1, 1)),
    voted_at    TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, paper_key)
) WITHOUT ROWID;

-- What a reader (user_id > 0) or a whole server (user_id = 0, set by an
-- admin) never wants picked: a vocabulary topic id or a free keyword.
CREATE TABLE mutes (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    kind        TEXT    NOT NULL CHECK (kind IN ('topic', 'keyword')),
    topic       TEXT    NOT NULL,
    label       TEXT    NOT NULL,
    created_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, kind, topic)
) WITHOUT ROWID;
