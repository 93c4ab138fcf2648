using System.Diagnostics;
using System.Globalization;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Commands;
using Cubby.Grains.Reports;
using Cubby.Resp;
using Cubby.Silo.Clustering;
using Cubby.Silo.Diagnostics;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>COMMAND, CONFIG and INFO: what tools such as redis-cli and redis-benchmark ask a server about itself.</summary>
internal static class ServerCommands
{
    public static void Command(ClientSession session, RespRequest request)
    {
        var table = session.Silo.Commands;
        var writer = session.Writer;
        if (request.Count == 1)
        {
            writer.WriteArrayHeader(table.All.Count);
            foreach (var command in table.All)
            {
                WriteInfo(writer, command);
            }

            return;
        }

        var subcommand = request[1];
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "COUNT"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "command|count"))
            {
                writer.WriteInteger(table.All.Count);
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "INFO"))
        {
            writer.WriteArrayHeader(request.Count - 2);
            for (var i = 2; i < request.Count; i++)
            {
                if (table.Find(request[i]) is { } command)
                {
                    WriteInfo(writer, command);
                }
                else
                {
                    writer.WriteNullArray();
                }
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "DOCS"))
        {
            // Documentation is optional for clients; an empty map tells redis-cli there are no hints to show.
            writer.WriteMapHeader(0);
        }
        else
        {
            writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "COMMAND"));
        }
    }

    public static void Config(ClientSession session, RespRequest request)
    {
        var subcommand = request[1];
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "GET"))
        {
            if (!Arguments.CheckArity(session.Context, request, -3, "config|get"))
            {
                return;
            }

            var options = session.Silo.Options;
            var parameters = new (string Name, string Value)[]
            {
                ("save", string.Empty),
                ("appendonly", session.Silo.Figures.Persistence is { ChangesFile: true } ? "yes" : "no"),
                ("databases", "1"),
                ("replica-read-only", "yes"),
                ("slave-read-only", "yes"),
                ("cluster-enabled", "no"),
                ("maxmemory", session.Silo.Figures.MemoryLimit.ToString(CultureInfo.InvariantCulture)),
                ("maxmemory-policy", "allkeys-lru"),
                ("maxmemory-samples", options.EvictionSamples.ToString(CultureInfo.InvariantCulture)),
                ("proto-max-bulk-len", options.MaxValueBytes.ToString(CultureInfo.InvariantCulture)),
                ("port", session.Silo.Endpoints.Resp.Port.ToString(CultureInfo.InvariantCulture)),
                ("hz", ((int)(1000 / options.ActiveExpiryInterval.TotalMilliseconds)).ToString(CultureInfo.InvariantCulture)),
            };
            var matches = new List<(string Name, string Value)>();
            foreach (var parameter in parameters)
            {
                for (var i = 2; i < request.Count; i++)
                {
                    if (GlobPattern.IsMatch(request[i], Encoding.ASCII.GetBytes(parameter.Name)))
                    {
                        matches.Add(parameter);
                        break;
                    }
                }
            }

            session.Writer.WriteMapHeader(matches.Count);
            foreach (var (name, value) in matches)
            {
                session.Writer.WriteBulkString(name);
                session.Writer.WriteBulkString(value);
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "SET"))
        {
            if (!Arguments.CheckArity(session.Context, request, -4, "config|set"))
            {
                return;
            }

            session.Writer.WriteError("ERR CONFIG SET is not supported: configure the silo with Cubby:* settings and restart it");
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "RESETSTAT"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "config|resetstat"))
            {
                session.Writer.WriteOk();
            }
        }
        else
        {
            session.Writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "CONFIG"));
        }
    }

    /// <summary>TIME: the silo's clock as Unix seconds and the microseconds within the second.</summary>
    public static void Time(ClientSession session, RespRequest request)
    {
        var microseconds = (session.Silo.Time.GetUtcNow() - DateTimeOffset.UnixEpoch).Ticks / TimeSpan.TicksPerMicrosecond;
        session.Writer.WriteArrayHeader(2);
        session.Writer.WriteBulkString((microseconds / 1_000_000).ToString(CultureInfo.InvariantCulture));
        session.Writer.WriteBulkString((microseconds % 1_000_000).ToString(CultureInfo.InvariantCulture));
    }

    /// <summary>
    /// FUNCTION: Cubby runs no functions (nor Lua), so FLUSH has nothing to remove and answers OK, as a Redis with no
    /// functions loaded does; every other subcommand is refused, naming it.
    /// </summary>
    public static void Function(ClientSession session, RespRequest request)
    {
        if (!AsciiIgnoreCaseComparer.IsKeyword(request[1], "FLUSH"))
        {
            session.Writer.WriteError($"ERR Cubby runs no functions: FUNCTION {RedisErrors.Printable(request[1]).ToUpperInvariant()} is not supported");
        }
        else if (request.Count == 2 || (request.Count == 3 && (AsciiIgnoreCaseComparer.IsKeyword(request[2], "ASYNC") || AsciiIgnoreCaseComparer.IsKeyword(request[2], "SYNC"))))
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError(RedisErrors.Syntax);
        }
    }

    /// <summary>CLUSTER: Cubby speaks to Redis clients as one standalone server, so Redis Cluster's commands are refused as such a server refuses them.</summary>
    public static void Cluster(ClientSession session, RespRequest request) => session.Writer.WriteError(SiloErrors.ClusterDisabled);

    public static void Info(ClientSession session, RespRequest request)
    {
        var silo = session.Silo;
        var sections = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        for (var i = 1; i < request.Count; i++)
        {
            sections.Add(Arguments.Utf8(request[i]));
        }

        bool Wants(string section) => sections.Count == 0 || sections.Contains(section) || sections.Contains("all") || sections.Contains("everything") || sections.Contains("default");
        var text = new StringBuilder();
        var uptime = silo.Time.GetUtcNow() - silo.StartedAt;
        using var process = Process.GetCurrentProcess();
        if (Wants("server"))
        {
            text.Append("# Server\r\n")
                .Append(CultureInfo.InvariantCulture, $"redis_version:{ConnectionCommands.CompatibleRedisVersion}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_version:{typeof(ServerCommands).Assembly.GetName().Version}\r\n")
                .Append("redis_mode:standalone\r\n")
                .Append(CultureInfo.InvariantCulture, $"run_id:{silo.RunId}\r\n")
                .Append(CultureInfo.InvariantCulture, $"os:{Environment.OSVersion}\r\n")
                .Append(CultureInfo.InvariantCulture, $"process_id:{Environment.ProcessId}\r\n")
                .Append(CultureInfo.InvariantCulture, $"tcp_port:{silo.Endpoints.Resp.Port}\r\n")
                .Append(CultureInfo.InvariantCulture, $"uptime_in_seconds:{(long)uptime.TotalSeconds}\r\n")
                .Append(CultureInfo.InvariantCulture, $"slot_count:{silo.Catalog.SlotCount}\r\n\r\n");
        }

        if (Wants("clients"))
        {
            text.Append("# Clients\r\n")
                .Append(CultureInfo.InvariantCulture, $"connected_clients:{silo.Clients.Count}\r\n")
                .Append(CultureInfo.InvariantCulture, $"pubsub_clients:{silo.Clients.All.Count(static client => client.Subscriber is { Count: > 0 })}\r\n")
                .Append(CultureInfo.InvariantCulture, $"tracking_clients:{silo.Clients.All.Count(static client => client.Tracking is { Enabled: true })}\r\n\r\n");
        }

        if (Wants("memory"))
        {
            var gc = GC.GetGCMemoryInfo();
            text.Append("# Memory\r\n")
                .Append(CultureInfo.InvariantCulture, $"used_memory:{silo.Figures.MemoryUsed}\r\n")
                .Append(CultureInfo.InvariantCulture, $"used_memory_rss:{process.WorkingSet64}\r\n")
                .Append(CultureInfo.InvariantCulture, $"maxmemory:{silo.Figures.MemoryLimit}\r\n")
                .Append(CultureInfo.InvariantCulture, $"maxmemory_kept_for_reuse:{silo.Figures.MemoryLimit - silo.Figures.MemoryCeiling}\r\n")
                .Append("maxmemory_policy:allkeys-lru\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_heap_bytes:{GC.GetTotalMemory(false)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_allocated_bytes_total:{GC.GetTotalAllocatedBytes()}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_committed_bytes:{gc.TotalCommittedBytes}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_fragmented_bytes:{gc.FragmentedBytes}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_gen2_bytes:{gc.GenerationInfo[2].SizeAfterBytes}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_loh_bytes:{gc.GenerationInfo[3].SizeAfterBytes}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_pinned_heap_bytes:{gc.GenerationInfo[4].SizeAfterBytes}\r\n");
            if (ShardFigures.TryReadNativeHeap(out var allocated, out var retained))
            {
                text.Append(CultureInfo.InvariantCulture, $"allocator_allocated:{allocated}\r\n")
                    .Append(CultureInfo.InvariantCulture, $"allocator_retained:{retained}\r\n");
            }

            var (resident, free, slack, pagesEmptied) = silo.Figures.SlabBytes;
            text.Append(CultureInfo.InvariantCulture, $"slab_resident_bytes:{resident}\r\n")
                .Append(CultureInfo.InvariantCulture, $"slab_free_bytes:{free}\r\n")
                .Append(CultureInfo.InvariantCulture, $"slab_slack_bytes:{slack}\r\n")
                .Append(CultureInfo.InvariantCulture, $"slab_pages_emptied:{pagesEmptied}\r\n")
                .Append("\r\n");
        }

        if (Wants("stats"))
        {
            var stats = silo.Statistics;
            var (expired, evicted) = silo.Figures.Removed();

            text.Append("# Stats\r\n")
                .Append(CultureInfo.InvariantCulture, $"total_connections_received:{stats.ConnectionsReceived}\r\n")
                .Append(CultureInfo.InvariantCulture, $"total_commands_processed:{stats.Commands}\r\n")
                .Append(CultureInfo.InvariantCulture, $"keyspace_hits:{stats.Hits}\r\n")
                .Append(CultureInfo.InvariantCulture, $"keyspace_misses:{stats.Misses}\r\n")
                .Append(CultureInfo.InvariantCulture, $"expired_keys:{expired}\r\n")
                .Append(CultureInfo.InvariantCulture, $"evicted_keys:{evicted}\r\n")
                .Append(CultureInfo.InvariantCulture, $"pubsub_channels:{silo.PubSub.ChannelCount}\r\n")
                .Append(CultureInfo.InvariantCulture, $"pubsub_patterns:{silo.PubSub.PatternCount}\r\n")
                .Append(CultureInfo.InvariantCulture, $"tracking_total_keys:{silo.Figures.TrackedKeys}\r\n")
                .Append(CultureInfo.InvariantCulture, $"total_error_replies_protocol:{stats.ProtocolErrors}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rejected_connections:{stats.RejectedConnections}\r\n\r\n");
        }

        if (Wants("persistence"))
        {
            // Redis's fields where they mean the same; loading is always 0, as a silo loads its folder before it serves.
            var files = silo.Figures.Persistence;
            text.Append("# Persistence\r\n")
                .Append("loading:0\r\n")
                .Append(CultureInfo.InvariantCulture, $"aof_enabled:{(files is { ChangesFile: true } ? 1 : 0)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"aof_current_size:{files?.Appended ?? 0}\r\n")
                .Append(CultureInfo.InvariantCulture, $"aof_last_write_status:{(files is { Broken: true } ? "err" : "ok")}\r\n")
                .Append(CultureInfo.InvariantCulture, $"aof_buffer_length:{(files is null ? 0 : files.Appended - files.Durable)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rdb_changes_since_last_save:{Math.Max(0, (files?.ChangesRecorded ?? 0) - silo.Saves.ChangesAtLastSave)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rdb_bgsave_in_progress:{(silo.Saves.InBackground ? 1 : 0)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rdb_last_save_time:{silo.Saves.LastSave}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rdb_last_bgsave_status:{(silo.Saves.LastSucceeded ? "ok" : "err")}\r\n")
                .Append(CultureInfo.InvariantCulture, $"rdb_last_load_keys_loaded:{files?.EntriesLoaded ?? 0}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_persistence_enabled:{(files is null ? 0 : 1)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_persistence_directory:{files?.Folder}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_shards_loaded:{files?.ShardsLoaded ?? 0}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_files_unreadable:{files?.FilesUnreadable ?? 0}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_load_ms:{(long)(files?.LoadTime.TotalMilliseconds ?? 0)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"cubby_shards_not_saved:{files?.ShardsNotSaved ?? 0}\r\n\r\n");
        }

        if (Wants("replication"))
        {
            // A standalone primary without replicas, field for field as Redis 7 reports one; the id is this silo's run.
            text.Append("# Replication\r\n")
                .Append("role:master\r\n")
                .Append("connected_slaves:0\r\n")
                .Append("master_failover_state:no-failover\r\n")
                .Append(CultureInfo.InvariantCulture, $"master_replid:{silo.RunId}\r\n")
                .Append("master_replid2:0000000000000000000000000000000000000000\r\n")
                .Append("master_repl_offset:0\r\n")
                .Append("second_repl_offset:-1\r\n")
                .Append("repl_backlog_active:0\r\n")
                .Append("repl_backlog_size:1048576\r\n")
                .Append("repl_backlog_first_byte_offset:0\r\n")
                .Append("repl_backlog_histlen:0\r\n\r\n");
        }

        if (Wants("gc"))
        {
            var (p50, p99, max) = GcPauseMonitor.Shared.Percentiles();
            text.Append("# GC\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_gen0_collections:{GC.CollectionCount(0)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_gen1_collections:{GC.CollectionCount(1)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_gen2_collections:{GC.CollectionCount(2)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_pauses_recorded:{GcPauseMonitor.Shared.Count}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_total_pause_ms:{GC.GetTotalPauseDuration().TotalMilliseconds:0.###}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_pause_p50_ms:{p50:0.###}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_pause_p99_ms:{p99:0.###}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_pause_max_ms:{max:0.###}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_heap_bytes:{GC.GetTotalMemory(false)}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_allocated_bytes_total:{GC.GetTotalAllocatedBytes()}\r\n")
                .Append(CultureInfo.InvariantCulture, $"gc_server:{(System.Runtime.GCSettings.IsServerGC ? 1 : 0)}\r\n\r\n");
        }

        if (Wants("keyspace"))
        {
            var keys = silo.Figures.Entries;
            text.Append("# Keyspace\r\n");
            if (keys > 0)
            {
                var expires = silo.Figures.EntriesWithExpiry();
                text.Append(CultureInfo.InvariantCulture, $"db0:keys={keys},expires={expires},avg_ttl=0\r\n");
            }
        }

        if (Wants("cluster"))
        {
            session.Defer(AppendClusterThenWriteAsync(session, text));
            return;
        }

        session.Writer.WriteVerbatimString("txt"u8, Encoding.UTF8.GetBytes(text.ToString()));
    }

    private static async ValueTask AppendClusterThenWriteAsync(ClientSession session, StringBuilder text)
    {
        try
        {
            var report = await ClusterReport.GatherAsync(session.Silo).ConfigureAwait(false);
            await session.ReplyTurnAsync().ConfigureAwait(false);
            report.AppendInfo(text);
            session.Writer.WriteVerbatimString("txt"u8, Encoding.UTF8.GetBytes(text.ToString()));
        }
        catch (Exception exception) when (exception is not OutOfMemoryException)
        {
            await session.ReplyTurnAsync().ConfigureAwait(false);
            session.Writer.WriteError("ERR internal error: " + exception.Message);
        }
    }

    private static void WriteInfo(RespWriter writer, CommandDefinition command)
    {
        writer.WriteArrayHeader(10);
        writer.WriteBulkString(command.Name);
        writer.WriteInteger(command.Arity);
        writer.WriteSetHeader(command.Flags.Length);
        foreach (var flag in command.Flags)
        {
            writer.WriteSimpleString(flag);
        }

        writer.WriteInteger(command.FirstKey);
        writer.WriteInteger(command.LastKey);
        writer.WriteInteger(command.KeyStep);
        writer.WriteSetHeader(0);
        writer.WriteSetHeader(0);
        writer.WriteArrayHeader(0);
        writer.WriteArrayHeader(0);
    }
}
