-- PostgreSQL twin of ../0006_saved_papers.sql.
CREATE TABLE saved_papers (
    guild_id    BIGINT  NOT NULL,
    user_id     BIGINT  NOT NULL,
    paper_key   TEXT    NOT NULL,
    saved_at    TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id, paper_key)
);

CREATE INDEX saved_papers_newest ON saved_papers (guild_id, user_id, saved_at);
