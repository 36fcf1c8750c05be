-- PostgreSQL twin of ../0011_feedback_versions.sql: a counter per server that
-- every row changed in its votes or mutes moves by one (a trigger, so every
-- writer counts), read by each process to know whether its in-memory
-- personalization of that server is current. Concurrent changes of one
-- server queue on its row, so the count never skips or repeats. Rows are
-- never deleted.
CREATE TABLE feedback_versions (
    guild_id    BIGINT  PRIMARY KEY,
    version     BIGINT  NOT NULL
);

INSERT INTO feedback_versions (guild_id, version)
    SELECT guild_id, count(*) FROM (
        SELECT guild_id FROM paper_votes UNION ALL SELECT guild_id FROM mutes
    ) AS changed GROUP BY guild_id;

CREATE FUNCTION feedback_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    guild BIGINT;
BEGIN
    IF TG_OP = 'DELETE' THEN
        guild := OLD.guild_id;
    ELSE
        guild := NEW.guild_id;
    END IF;
    INSERT INTO feedback_versions (guild_id, version) VALUES (guild, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = feedback_versions.version + 1;
    RETURN NULL;
END
$$;

CREATE TRIGGER paper_votes_changed AFTER INSERT OR UPDATE OR DELETE ON paper_votes
    FOR EACH ROW EXECUTE FUNCTION feedback_changed();

CREATE TRIGGER mutes_changed AFTER INSERT OR UPDATE OR DELETE ON mutes
    FOR EACH ROW EXECUTE FUNCTION feedback_changed();
