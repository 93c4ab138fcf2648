-- The statement catalogue of Orleans' ADO.NET providers.
--
-- Each provider reads the whole table once when it starts ("SELECT QueryKey, QueryText FROM OrleansQuery")
-- and refuses to start if a key it needs is missing, so the table name and both column names are fixed
-- by Orleans. The statements stored in it are Cubby's own: 02-clustering.sql and 03-reminders.sql upsert
-- them, rewriting a row only when its text changed, so re-running the scripts is a no-op.
--
-- Every stored statement opens with a /* OrleansQuery <key> */ comment, so that it can be told apart in
-- pg_stat_activity and the server log.
--
-- Running silos keep the statements they loaded at start; a changed statement reaches a silo on restart.

CREATE TABLE IF NOT EXISTS OrleansQuery
(
    QueryKey  varchar(64) NOT NULL,
    QueryText text        NOT NULL,

    CONSTRAINT pk_orleans_query PRIMARY KEY (QueryKey)
);
