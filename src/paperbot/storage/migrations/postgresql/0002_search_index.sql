-- PostgreSQL twin of ../0002_search_index.sql: arrays in parts as BYTEA.
CREATE TABLE search_index (
    name           TEXT    PRIMARY KEY,
    corpus_version INTEGER NOT NULL,
    format         INTEGER NOT NULL,
    dtype          TEXT    NOT NULL,
    shape          TEXT    NOT NULL,
    data           BYTEA   NOT NULL
);
