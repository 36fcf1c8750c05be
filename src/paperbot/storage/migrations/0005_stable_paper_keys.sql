-- Papers are retired, never deleted, and history names a paper by its stable
-- key (the normalised title), never by a row id. Before this, removing a
-- paper from a page cascaded onto digest_posted and forgot which channels had
-- already received it; when the page came back the paper got a new id and
-- could be posted again.

-- A retired paper (no page lists it any more) keeps its row, id and key, so
-- a page that brings it back restores the same identity. Retired papers are
-- left out of search, topics and digest picking.
ALTER TABLE papers ADD COLUMN retired_at TEXT;

-- digest_posts: `paper_ids` (row ids) becomes `paper_keys` (JSON list of
-- paper keys, in post order). Rebuilt because SQLite cannot drop a column
-- that other tables' history was written against.
CREATE TABLE digest_posts_new (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('scheduled', 'manual')),
    local_date    TEXT    NOT NULL,              -- YYYY-MM-DD, server-local
    nonce         TEXT    NOT NULL UNIQUE,
    header        TEXT    NOT NULL,              -- first content line, found again in history
    paper_keys    TEXT    NOT NULL,              -- JSON list of papers.key, in post order
    message       TEXT    NOT NULL,              -- JSON of the rendered post, re-sent as is
    state         TEXT    NOT NULL CHECK (state IN ('claimed', 'sent', 'confirmed', 'failed', 'expired')),
    claimed_at    TEXT    NOT NULL,
    deadline      TEXT    NOT NULL,              -- a scheduled post not out by then is dropped
    sent_at       TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    message_id    INTEGER,
    error         TEXT
);

INSERT INTO digest_posts_new (id, guild_id, channel_id, kind, local_date, nonce, header,
    paper_keys, message, state, claimed_at, deadline, sent_at, attempts, message_id, error)
SELECT d.id, d.guild_id, d.channel_id, d.kind, d.local_date, d.nonce, d.header,
    (SELECT json_group_array(picked.key) FROM (
        SELECT p.key AS key FROM json_each(d.paper_ids) AS j
        JOIN papers AS p ON p.id = j.value ORDER BY j.key) AS picked),
    d.message, d.state, d.claimed_at, d.deadline, d.sent_at, d.attempts, d.message_id, d.error
FROM digest_posts AS d;

-- digest_posted: keyed by paper key, and no reference to papers at all, so
-- nothing done to a paper row can ever remove a channel's history. Its rows
-- still go with their post (a post that failed for good frees its papers).
CREATE TABLE digest_posted_new (
    channel_id    INTEGER NOT NULL,
    paper_key     TEXT    NOT NULL,
    post_id       INTEGER NOT NULL REFERENCES digest_posts (id) ON DELETE CASCADE,
    PRIMARY KEY (channel_id, paper_key)
) WITHOUT ROWID;

INSERT INTO digest_posted_new (channel_id, paper_key, post_id)
SELECT s.channel_id, p.key, s.post_id FROM digest_posted AS s JOIN papers AS p ON p.id = s.paper_id;

DROP TABLE digest_posted;
DROP TABLE digest_posts;
ALTER TABLE digest_posts_new RENAME TO digest_posts;
ALTER TABLE digest_posted_new RENAME TO digest_posted;

CREATE UNIQUE INDEX digest_posts_one_a_day ON digest_posts (guild_id, local_date)
    WHERE kind = 'scheduled';
CREATE INDEX digest_posts_open ON digest_posts (state) WHERE state IN ('claimed', 'sent');
CREATE INDEX digest_posted_post ON digest_posted (post_id);
