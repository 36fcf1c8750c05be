-- The search index, persisted so a restart reuses it instead of rebuilding.
-- One row per numpy array; every row of a saved index carries the corpus
-- version it was built from and the index format, and a save replaces all rows.
CREATE TABLE search_index (
    name           TEXT    PRIMARY KEY,
    corpus_version INTEGER NOT NULL,
    format         INTEGER NOT NULL,
    dtype          TEXT    NOT NULL,
    shape          TEXT    NOT NULL,  -- JSON list of ints
    data           BLOB    NOT NULL
);
