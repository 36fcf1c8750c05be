-- PostgreSQL twin of ../0005_stable_paper_keys.sql: papers are retired, never
-- deleted (digest history by key is already 0004's shape here).
ALTER TABLE papers ADD COLUMN retired_at TEXT;
