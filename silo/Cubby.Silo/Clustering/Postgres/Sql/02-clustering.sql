-- Cluster membership for Orleans' ADO.NET clustering provider (Microsoft.Orleans.Clustering.AdoNet).
--
-- What the provider relies on:
--   * it reads result columns by name (case-insensitively) and binds @Name parameters;
--   * each cluster (DeploymentId) has one version row; every membership insert or update must name the
--     version it last read and succeeds only if that is still current, moving the version on by one.
--     The statements behind InsertMembershipKey and UpdateMembershipKey return one row with one column,
--     read as a boolean: non-zero when the write happened, zero when it did not (stale version, duplicate
--     or missing silo row), in which case nothing may have changed;
--   * heartbeats (UpdateIAmAlivetimeKey) leave the version alone;
--   * Status holds Orleans' SiloStatus numbers: 3 is Active, 6 is Dead.

CREATE TABLE IF NOT EXISTS OrleansMembershipVersionTable
(
    DeploymentId text        NOT NULL,
    Version      integer     NOT NULL DEFAULT 0,
    ChangedAt    timestamptz NOT NULL DEFAULT now(),

    CONSTRAINT pk_orleans_membership_version PRIMARY KEY (DeploymentId)
);

CREATE TABLE IF NOT EXISTS OrleansMembershipTable
(
    DeploymentId text        NOT NULL,
    Address      text        NOT NULL,
    Port         integer     NOT NULL,
    Generation   integer     NOT NULL,
    SiloName     text        NOT NULL,
    HostName     text        NOT NULL,
    Status       integer     NOT NULL,
    ProxyPort    integer     NOT NULL,
    SuspectTimes text        NULL,
    StartTime    timestamptz NOT NULL,
    IAmAliveTime timestamptz NOT NULL,

    CONSTRAINT pk_orleans_membership PRIMARY KEY (DeploymentId, Address, Port, Generation),
    -- Cascade, so that dropping a cluster is one DELETE of its version row.
    CONSTRAINT fk_orleans_membership_version FOREIGN KEY (DeploymentId)
        REFERENCES OrleansMembershipVersionTable (DeploymentId) ON DELETE CASCADE
);

-- Both writers lock the cluster's version row before touching anything and give up while nothing has been
-- written yet, so a failed attempt needs no rollback. Under READ COMMITTED the lock waits for a concurrent
-- writer and then re-checks the version against the committed row, which makes the check-and-bump atomic.

CREATE OR REPLACE FUNCTION orleans_membership_try_insert(
    p_deployment_id    text,
    p_address          text,
    p_port             integer,
    p_generation       integer,
    p_silo_name        text,
    p_host_name        text,
    p_status           integer,
    p_proxy_port       integer,
    p_start_time       timestamptz,
    p_i_am_alive_time  timestamptz,
    p_expected_version integer)
RETURNS integer
LANGUAGE plpgsql
AS $fn$
BEGIN
    PERFORM 1
      FROM OrleansMembershipVersionTable AS v
     WHERE v.DeploymentId = p_deployment_id
       AND v.Version = p_expected_version
       FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    INSERT INTO OrleansMembershipTable
        (DeploymentId, Address, Port, Generation, SiloName, HostName, Status, ProxyPort, StartTime, IAmAliveTime)
    VALUES
        (p_deployment_id, p_address, p_port, p_generation, p_silo_name, p_host_name, p_status, p_proxy_port,
         p_start_time, p_i_am_alive_time)
    ON CONFLICT ON CONSTRAINT pk_orleans_membership DO NOTHING;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    UPDATE OrleansMembershipVersionTable AS v
       SET Version = v.Version + 1,
           ChangedAt = now()
     WHERE v.DeploymentId = p_deployment_id;
    RETURN 1;
END
$fn$;

CREATE OR REPLACE FUNCTION orleans_membership_try_update(
    p_deployment_id    text,
    p_address          text,
    p_port             integer,
    p_generation       integer,
    p_status           integer,
    p_suspect_times    text,
    p_i_am_alive_time  timestamptz,
    p_expected_version integer)
RETURNS integer
LANGUAGE plpgsql
AS $fn$
BEGIN
    PERFORM 1
      FROM OrleansMembershipVersionTable AS v
     WHERE v.DeploymentId = p_deployment_id
       AND v.Version = p_expected_version
       FOR UPDATE;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    UPDATE OrleansMembershipTable AS m
       SET Status = p_status,
           SuspectTimes = p_suspect_times,
           IAmAliveTime = p_i_am_alive_time
     WHERE m.DeploymentId = p_deployment_id
       AND m.Address = p_address
       AND m.Port = p_port
       AND m.Generation = p_generation;
    IF NOT FOUND THEN
        RETURN 0;
    END IF;

    UPDATE OrleansMembershipVersionTable AS v
       SET Version = v.Version + 1,
           ChangedAt = now()
     WHERE v.DeploymentId = p_deployment_id;
    RETURN 1;
END
$fn$;

INSERT INTO OrleansQuery AS q (QueryKey, QueryText)
VALUES
(
    'InsertMembershipVersionKey',
    -- One row, one column: 1 if this call created the cluster's version row, 0 if it already existed.
    $q$
    /* OrleansQuery InsertMembershipVersionKey */
    WITH created AS (
        INSERT INTO OrleansMembershipVersionTable (DeploymentId)
        VALUES (@DeploymentId)
        ON CONFLICT (DeploymentId) DO NOTHING
        RETURNING 1
    )
    SELECT count(*)::integer FROM created
    $q$
),
(
    'InsertMembershipKey',
    $q$
    /* OrleansQuery InsertMembershipKey */
    SELECT orleans_membership_try_insert(
        p_deployment_id    => @DeploymentId,
        p_address          => @Address,
        p_port             => @Port,
        p_generation       => @Generation,
        p_silo_name        => @SiloName,
        p_host_name        => @HostName,
        p_status           => @Status,
        p_proxy_port       => @ProxyPort,
        p_start_time       => @StartTime,
        p_i_am_alive_time  => @IAmAliveTime,
        p_expected_version => @Version)
    $q$
),
(
    'UpdateMembershipKey',
    $q$
    /* OrleansQuery UpdateMembershipKey */
    SELECT orleans_membership_try_update(
        p_deployment_id    => @DeploymentId,
        p_address          => @Address,
        p_port             => @Port,
        p_generation       => @Generation,
        p_status           => @Status,
        p_suspect_times    => @SuspectTimes,
        p_i_am_alive_time  => @IAmAliveTime,
        p_expected_version => @Version)
    $q$
),
(
    'UpdateIAmAlivetimeKey',
    $q$
    /* OrleansQuery UpdateIAmAlivetimeKey */
    UPDATE OrleansMembershipTable
       SET IAmAliveTime = @IAmAliveTime
     WHERE DeploymentId = @DeploymentId
       AND Address = @Address
       AND Port = @Port
       AND Generation = @Generation
    $q$
),
(
    -- The version row comes back even when the silo has no row (its silo columns are then NULL): the provider
    -- needs the version either way and treats a NULL StartTime as "no such silo".
    'MembershipReadRowKey',
    $q$
    /* OrleansQuery MembershipReadRowKey */
    SELECT v.DeploymentId, m.Address, m.Port, m.Generation, m.SiloName, m.HostName, m.Status, m.ProxyPort,
           m.SuspectTimes, m.StartTime, m.IAmAliveTime, v.Version
      FROM OrleansMembershipVersionTable AS v
      LEFT JOIN OrleansMembershipTable AS m
             ON m.DeploymentId = v.DeploymentId
            AND m.Address = @Address
            AND m.Port = @Port
            AND m.Generation = @Generation
     WHERE v.DeploymentId = @DeploymentId
    $q$
),
(
    'MembershipReadAllKey',
    $q$
    /* OrleansQuery MembershipReadAllKey */
    SELECT v.DeploymentId, m.Address, m.Port, m.Generation, m.SiloName, m.HostName, m.Status, m.ProxyPort,
           m.SuspectTimes, m.StartTime, m.IAmAliveTime, v.Version
      FROM OrleansMembershipVersionTable AS v
      LEFT JOIN OrleansMembershipTable AS m
             ON m.DeploymentId = v.DeploymentId
     WHERE v.DeploymentId = @DeploymentId
    $q$
),
(
    -- Silo rows go with it (ON DELETE CASCADE).
    'DeleteMembershipTableEntriesKey',
    $q$
    /* OrleansQuery DeleteMembershipTableEntriesKey */
    DELETE FROM OrleansMembershipVersionTable
     WHERE DeploymentId = @DeploymentId
    $q$
),
(
    -- @Status is always Active; a ProxyPort of 0 means the silo accepts no clients.
    'GatewaysQueryKey',
    $q$
    /* OrleansQuery GatewaysQueryKey */
    SELECT Address, ProxyPort, Generation
      FROM OrleansMembershipTable
     WHERE DeploymentId = @DeploymentId
       AND Status = @Status
       AND ProxyPort > 0
    $q$
),
(
    -- Required by the provider, but 10.4+ only runs it when CleanupDefunctSiloEntryKey (below) is absent.
    -- Only Dead rows, to match what the per-row statement allows.
    'CleanupDefunctSiloEntriesKey',
    $q$
    /* OrleansQuery CleanupDefunctSiloEntriesKey */
    DELETE FROM OrleansMembershipTable
     WHERE DeploymentId = @DeploymentId
       AND Status = 6
       AND IAmAliveTime < @IAmAliveTime
    $q$
),
(
    -- Optional key (provider 10.4+). The provider picks Dead rows that are old enough from a fresh read and
    -- deletes each one with the values it read; the row goes only if none of them changed since.
    -- SuspectTimes is compared with NULL and '' as equal because the provider reads '' back as "no votes".
    'CleanupDefunctSiloEntryKey',
    $q$
    /* OrleansQuery CleanupDefunctSiloEntryKey */
    DELETE FROM OrleansMembershipTable
     WHERE DeploymentId = @DeploymentId
       AND Address = @Address
       AND Port = @Port
       AND Generation = @Generation
       AND Status = 6
       AND StartTime = @StartTime
       AND IAmAliveTime = @IAmAliveTime
       AND coalesce(SuspectTimes, '') = coalesce(@SuspectTimes, '')
    $q$
)
ON CONFLICT (QueryKey) DO UPDATE
    SET QueryText = EXCLUDED.QueryText
    WHERE q.QueryText IS DISTINCT FROM EXCLUDED.QueryText;
