-- Papers, keyed by their normalised title so reloading changes nothing.
CREATE TABLE papers (
    id          INTEGER PRIMARY KEY,
    key         TEXT    NOT NULL UNIQUE,
    title       TEXT    NOT NULL,
    venue       TEXT    NOT NULL,
    year        INTEGER NOT NULL,
    area        TEXT    NOT NULL,
    -- JSON list of {"file", "line", "summaries"}: what each source said, so a
    -- reload of one file replaces only that file's part.
    entries     TEXT    NOT NULL,
    summaries   TEXT    NOT NULL,  -- JSON list of strings, derived from entries
    added_at    TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);

CREATE INDEX papers_venue_year ON papers (venue, year);

-- Small key/value state: corpus version, command-sync hash, ...
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
