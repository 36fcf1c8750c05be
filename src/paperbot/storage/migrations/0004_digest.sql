-- The daily digest: per-server settings, posts with their claim state, and
-- which papers each channel has already seen.

CREATE TABLE digest_settings (
    guild_id      INTEGER PRIMARY KEY,
    channel_id    INTEGER NOT NULL,
    post_time     TEXT    NOT NULL,              -- HH:MM, server-local wall time
    timezone      TEXT    NOT NULL,              -- IANA name
    count         INTEGER NOT NULL CHECK (count BETWEEN 1 AND 10),
    enabled       INTEGER NOT NULL DEFAULT 1,
    -- Slots before this instant are not owed: a time set after today's slot
    -- starts tomorrow, and a restart never posts for a schedule set later.
    active_since  TEXT    NOT NULL,
    updated_by    INTEGER,
    updated_at    TEXT    NOT NULL,
    -- The last failure to post, kept until an admin has been told.
    failure       TEXT,
    failure_at    TEXT
);

-- One row per post. A scheduled post is keyed by (guild, local date): the
-- unique index makes the claim the single gate to "exactly one post a day".
-- state: claimed (picks decided, nothing sent) -> sent (the request may have
-- reached Discord) -> confirmed (message id known); failed / expired end it.
CREATE TABLE digest_posts (
    id            INTEGER PRIMARY KEY,
    guild_id      INTEGER NOT NULL,
    channel_id    INTEGER NOT NULL,
    kind          TEXT    NOT NULL CHECK (kind IN ('scheduled', 'manual')),
    local_date    TEXT    NOT NULL,              -- YYYY-MM-DD, server-local
    nonce         TEXT    NOT NULL UNIQUE,
    header        TEXT    NOT NULL,              -- first content line, found again in history
    paper_ids     TEXT    NOT NULL,              -- JSON list, in post order
    message       TEXT    NOT NULL,              -- JSON of the rendered post, re-sent as is
    state         TEXT    NOT NULL CHECK (state IN ('claimed', 'sent', 'confirmed', 'failed', 'expired')),
    claimed_at    TEXT    NOT NULL,
    deadline      TEXT    NOT NULL,              -- a scheduled post not out by then is dropped
    sent_at       TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    message_id    INTEGER,
    error         TEXT
);

CREATE UNIQUE INDEX digest_posts_one_a_day ON digest_posts (guild_id, local_date)
    WHERE kind = 'scheduled';
CREATE INDEX digest_posts_open ON digest_posts (state) WHERE state IN ('claimed', 'sent');

-- Papers a channel has seen. Written with the claim, so two posts in flight
-- can never pick the same paper; removed again if that post fails for good.
CREATE TABLE digest_posted (
    channel_id    INTEGER NOT NULL,
    paper_id      INTEGER NOT NULL REFERENCES papers (id) ON DELETE CASCADE,
    post_id       INTEGER NOT NULL REFERENCES digest_posts (id) ON DELETE CASCADE,
    PRIMARY KEY (channel_id, paper_id)
) WITHOUT ROWID;

CREATE INDEX digest_posted_post ON digest_posted (post_id);
