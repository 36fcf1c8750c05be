-- A reader's saved papers (the 🔖 button), per server and user.
-- Named by the paper's stable key with no reference to `papers`, like digest
-- history: no corpus change can remove what a reader saved. A retired paper
-- keeps its row, so a saved one can still be shown and exported.
CREATE TABLE saved_papers (
    guild_id    INTEGER NOT NULL,
    user_id     INTEGER NOT NULL,
    paper_key   TEXT    NOT NULL,
    saved_at    TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, paper_key)
) WITHOUT ROWID;

-- /saved lists a reader's papers newest first.
CREATE INDEX saved_papers_newest ON saved_papers (guild_id, user_id, saved_at);
