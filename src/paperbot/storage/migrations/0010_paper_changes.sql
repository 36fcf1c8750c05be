-- The corpus version at which each paper was last changed (inserted again,
-- updated or retired by a load), so a stored search index or topic corpus
-- tagged with the version it covers can tell, in a new process, exactly which
-- of its papers changed since: those are marked dead and appended again
-- instead of rebuilding everything. 0: not changed since this migration (a
-- stored index from before it has no watermark and is rebuilt once).
ALTER TABLE papers ADD COLUMN changed_version INTEGER NOT NULL DEFAULT 0;

CREATE INDEX papers_changed_version ON papers (changed_version);
