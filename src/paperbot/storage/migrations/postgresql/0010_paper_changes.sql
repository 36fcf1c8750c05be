-- PostgreSQL twin of ../0010_paper_changes.sql: the corpus version at which
-- each paper was last changed (inserted again, updated or retired by a load).
ALTER TABLE papers ADD COLUMN changed_version BIGINT NOT NULL DEFAULT 0;

CREATE INDEX papers_changed_version ON papers (changed_version);
