-- The personal daily digest by DM and the digest archive (issue 12).
--
-- One setting per reader, not per server: a reader in several servers gets
-- one DM a day, picked for the topics they follow in all of them.
CREATE TABLE personal_digest_settings (
    user_id       INTEGER PRIMARY KEY,
    post_time     TEXT    NOT NULL,              -- HH:MM, the reader's wall time
    timezone      TEXT    NOT NULL,              -- IANA name
    count         INTEGER NOT NULL CHECK (count BETWEEN 1 AND 10),
    enabled       INTEGER NOT NULL DEFAULT 1,
    -- Slots before this instant are not owed (as for the server digest).
    active_since  TEXT    NOT NULL,
    set_in_guild  INTEGER,                       -- where /digest me was last used
    updated_at    TEXT    NOT NULL,
    -- Why the digest was switched off by the bot (DMs closed), kept until
    -- the reader has been told at their next command.
    notice        TEXT,
    notice_at     TEXT
);

-- One row per DM, keyed by (user, local date): the unique index is the single
-- gate to "one DM a day". States as for digest_posts. `channel_id` is the DM
-- channel, known once Discord opened it (before the message is sent).
CREATE TABLE personal_posts (
    id            INTEGER PRIMARY KEY,
    user_id       INTEGER NOT NULL,
    local_date    TEXT    NOT NULL,              -- YYYY-MM-DD, reader-local
    nonce         TEXT    NOT NULL UNIQUE,
    header        TEXT    NOT NULL,              -- first content line, found again in history
    paper_keys    TEXT    NOT NULL,              -- JSON list of papers.key, in post order
    message       TEXT    NOT NULL,              -- JSON of the rendered DM, re-sent as is
    state         TEXT    NOT NULL CHECK (state IN ('claimed', 'sent', 'confirmed', 'failed', 'expired')),
    channel_id    INTEGER,
    claimed_at    TEXT    NOT NULL,
    deadline      TEXT    NOT NULL,
    sent_at       TEXT,
    attempts      INTEGER NOT NULL DEFAULT 0,
    message_id    INTEGER,
    error         TEXT
);

CREATE UNIQUE INDEX personal_posts_one_a_day ON personal_posts (user_id, local_date);
CREATE INDEX personal_posts_open ON personal_posts (state) WHERE state IN ('claimed', 'sent');

-- Papers a reader got by DM, by stable key (no reference to papers: nothing
-- done to the corpus can make a paper new to them again). Written with the
-- claim; removed with a DM that failed for good.
CREATE TABLE personal_received (
    user_id       INTEGER NOT NULL,
    paper_key     TEXT    NOT NULL,
    post_id       INTEGER NOT NULL REFERENCES personal_posts (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, paper_key)
) WITHOUT ROWID;

CREATE INDEX personal_received_post ON personal_received (post_id);

-- Who each server post pinged (its mention line), so "papers this reader
-- already got in a channel" is an index lookup, not a scan of every post's
-- JSON. Written with the post's claim; filled here for the posts so far.
CREATE TABLE digest_pinged (
    user_id       INTEGER NOT NULL,
    post_id       INTEGER NOT NULL REFERENCES digest_posts (id) ON DELETE CASCADE,
    PRIMARY KEY (user_id, post_id)
) WITHOUT ROWID;

CREATE INDEX digest_pinged_post ON digest_pinged (post_id);

INSERT OR IGNORE INTO digest_pinged (user_id, post_id)
SELECT CAST(m.value AS INTEGER), d.id
FROM digest_posts AS d, json_each(d.message, '$.mention_user_ids') AS m;

-- /digest history pages a server's posts newest first; the personal digest
-- reads the posts of the servers a reader follows topics in.
CREATE INDEX digest_posts_guild ON digest_posts (guild_id, local_date);
CREATE INDEX subscriptions_user ON subscriptions (user_id, guild_id);
