-- A counter per server that every change to its votes or mutes moves by one,
-- whoever makes it (a vote, /feedback reset, /mydata delete, a purge, another
-- process): each process keeps a server's personalization in memory and reads
-- this one row per pick to know whether that copy is still current. The
-- triggers count rows, so a change of k rows moves it by k. Rows hold no user
-- data and are never deleted (a purge must not restart a count that a
-- process may still remember).
CREATE TABLE feedback_versions (
    guild_id    INTEGER PRIMARY KEY,
    version     INTEGER NOT NULL
);

INSERT INTO feedback_versions (guild_id, version)
    SELECT guild_id, count(*) FROM (
        SELECT guild_id FROM paper_votes UNION ALL SELECT guild_id FROM mutes
    ) GROUP BY guild_id;

CREATE TRIGGER paper_votes_inserted AFTER INSERT ON paper_votes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (NEW.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER paper_votes_updated AFTER UPDATE ON paper_votes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (NEW.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER paper_votes_deleted AFTER DELETE ON paper_votes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (OLD.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER mutes_inserted AFTER INSERT ON mutes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (NEW.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER mutes_updated AFTER UPDATE ON mutes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (NEW.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;

CREATE TRIGGER mutes_deleted AFTER DELETE ON mutes BEGIN
    INSERT INTO feedback_versions (guild_id, version) VALUES (OLD.guild_id, 1)
        ON CONFLICT (guild_id) DO UPDATE SET version = version + 1;
END;
