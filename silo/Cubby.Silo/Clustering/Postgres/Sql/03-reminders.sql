-- Durable reminders for Orleans' ADO.NET reminders provider (Microsoft.Orleans.Reminders.AdoNet).
--
-- What the provider relies on:
--   * rows come back with the columns GrainId, ReminderName, StartTime, Period (milliseconds, read as a
--     64-bit integer) and Version (the reminder's etag, an integer);
--   * an upsert returns the row's new Version, and a delete succeeds only for the Version the caller holds,
--     returning one row with one column: non-zero if the reminder was deleted;
--   * reminder ownership is split between silos by ranges of GrainHash, a uint the provider binds as a
--     signed integer. A range (@BeginHash, @EndHash] that wraps around, as compared on signed values,
--     arrives as ReadRangeRows2Key, any other as ReadRangeRows1Key.

CREATE TABLE IF NOT EXISTS OrleansRemindersTable
(
    ServiceId    text        NOT NULL,
    GrainId      text        NOT NULL,
    ReminderName text        NOT NULL,
    StartTime    timestamptz NOT NULL,
    Period       bigint      NOT NULL,
    GrainHash    integer     NOT NULL,
    Version      integer     NOT NULL,

    CONSTRAINT pk_orleans_reminders PRIMARY KEY (ServiceId, GrainId, ReminderName)
);

-- Every silo re-reads its hash ranges whenever membership changes.
CREATE INDEX IF NOT EXISTS ix_orleans_reminders_grain_hash ON OrleansRemindersTable (ServiceId, GrainHash);

INSERT INTO OrleansQuery AS q (QueryKey, QueryText)
VALUES
(
    -- A new reminder starts at Version 0; replacing one moves its Version on.
    'UpsertReminderRowKey',
    $q$
    /* OrleansQuery UpsertReminderRowKey */
    INSERT INTO OrleansRemindersTable AS r
        (ServiceId, GrainId, ReminderName, StartTime, Period, GrainHash, Version)
    VALUES
        (@ServiceId, @GrainId, @ReminderName, @StartTime, @Period, @GrainHash, 0)
    ON CONFLICT ON CONSTRAINT pk_orleans_reminders DO UPDATE
        SET StartTime = EXCLUDED.StartTime,
            Period = EXCLUDED.Period,
            GrainHash = EXCLUDED.GrainHash,
            Version = r.Version + 1
    RETURNING r.Version
    $q$
),
(
    'ReadReminderRowKey',
    $q$
    /* OrleansQuery ReadReminderRowKey */
    SELECT GrainId, ReminderName, StartTime, Period, Version
      FROM OrleansRemindersTable
     WHERE ServiceId = @ServiceId
       AND GrainId = @GrainId
       AND ReminderName = @ReminderName
    $q$
),
(
    'ReadReminderRowsKey',
    $q$
    /* OrleansQuery ReadReminderRowsKey */
    SELECT GrainId, ReminderName, StartTime, Period, Version
      FROM OrleansRemindersTable
     WHERE ServiceId = @ServiceId
       AND GrainId = @GrainId
    $q$
),
(
    'ReadRangeRows1Key',
    $q$
    /* OrleansQuery ReadRangeRows1Key */
    SELECT GrainId, ReminderName, StartTime, Period, Version
      FROM OrleansRemindersTable
     WHERE ServiceId = @ServiceId
       AND GrainHash > @BeginHash
       AND GrainHash <= @EndHash
    $q$
),
(
    'ReadRangeRows2Key',
    $q$
    /* OrleansQuery ReadRangeRows2Key */
    SELECT GrainId, ReminderName, StartTime, Period, Version
      FROM OrleansRemindersTable
     WHERE ServiceId = @ServiceId
       AND (GrainHash > @BeginHash OR GrainHash <= @EndHash)
    $q$
),
(
    'DeleteReminderRowKey',
    $q$
    /* OrleansQuery DeleteReminderRowKey */
    WITH deleted AS (
        DELETE FROM OrleansRemindersTable
         WHERE ServiceId = @ServiceId
           AND GrainId = @GrainId
           AND ReminderName = @ReminderName
           AND Version = @Version
        RETURNING 1
    )
    SELECT count(*)::integer FROM deleted
    $q$
),
(
    'DeleteReminderRowsKey',
    $q$
    /* OrleansQuery DeleteReminderRowsKey */
    DELETE FROM OrleansRemindersTable
     WHERE ServiceId = @ServiceId
    $q$
)
ON CONFLICT (QueryKey) DO UPDATE
    SET QueryText = EXCLUDED.QueryText
    WHERE q.QueryText IS DISTINCT FROM EXCLUDED.QueryText;
