using System.Globalization;

namespace Cubby.Load.Persistence;

/// <summary>
/// How long a persistent server takes to come back with its entries, and what it keeps on disk: each server is filled
/// with <see cref="Entries"/> distinct keys of <see cref="ValueBytes"/> B on a folder of its own, left until its files
/// settle, stopped (SIGKILL, or SIGTERM for a graceful stop) and started again on the same folder, timed until it answers
/// PING and until DBSIZE counts every entry. Each step's folder is measured as it goes.
/// </summary>
internal sealed class LoadTimes(ToolSet tools, string work, int entries, TextWriter log)
{
    public const int ValueBytes = 100;

    private int _folders;

    public int Entries => entries;

    public List<LoadRow> Loads { get; } = [];

    public List<DiskRow> Disk { get; } = [];

    /// <summary>
    /// A Cubby silo: filled, killed (SIGKILL) and started again, so it loads its snapshots and replays its changes
    /// file; then, when <paramref name="graceful"/>, stopped with SIGTERM (it writes every shard whole) and started again.
    /// </summary>
    public async Task CubbyAsync(ServerSetup setup, bool graceful)
    {
        var folder = NewFolder();
        ServerProcess? server = null;
        try
        {
            server = await FilledAsync(setup, folder, folder).ConfigureAwait(false);
            server.Dispose();
            (server, var killed) = await ServerSteps.StartTimedAsync(setup, tools, folder, "SIGKILL", DiskUse.Of(folder), entries).ConfigureAwait(false);
            await AddAsync(killed).ConfigureAwait(false);
            await ServerSteps.SettleAsync(server, folder).ConfigureAwait(false);
            await AddAsync(new DiskRow(setup.Name, "after the restart from SIGKILL", DiskUse.Of(folder), killed.Entries)).ConfigureAwait(false);
            if (graceful)
            {
                var stop = await ServerSteps.TerminateAsync(server).ConfigureAwait(false);
                server.Dispose();
                await AddAsync(new DiskRow(setup.Name, "after SIGTERM", DiskUse.Of(folder), killed.Entries)).ConfigureAwait(false);
                (server, var stopped) = await ServerSteps.StartTimedAsync(
                    setup, tools, folder, string.Create(CultureInfo.InvariantCulture, $"SIGTERM (exited in {stop.TotalSeconds:0.0} s)"), DiskUse.Of(folder), entries).ConfigureAwait(false);
                await AddAsync(stopped).ConfigureAwait(false);
            }
        }
        finally
        {
            server?.Dispose();
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// A Redis server with its AOF (<paramref name="setup"/>): filled, killed (SIGKILL) and started again, so it loads
    /// its AOF; then, when <paramref name="snapshot"/>, SAVE writes dump.rdb, and it is killed again and started without
    /// its AOF (<see cref="ServerSetup.RedisSnapshot"/>), so it loads dump.rdb.
    /// </summary>
    public async Task RedisAsync(ServerSetup setup, bool snapshot)
    {
        var folder = NewFolder();
        var appendOnly = Path.Combine(folder, "appendonlydir");
        var dump = Path.Combine(folder, "dump.rdb");
        ServerProcess? server = null;
        try
        {
            server = await FilledAsync(setup, folder, appendOnly).ConfigureAwait(false);
            server.Dispose();
            (server, var killed) = await ServerSteps.StartTimedAsync(setup, tools, folder, "SIGKILL", DiskUse.Of(appendOnly), entries).ConfigureAwait(false);
            await AddAsync(killed).ConfigureAwait(false);
            await ServerSteps.SettleAsync(server, folder).ConfigureAwait(false);
            await AddAsync(new DiskRow(setup.Name, "after the restart from SIGKILL", DiskUse.Of(appendOnly), killed.Entries)).ConfigureAwait(false);
            if (snapshot)
            {
                await ServerSteps.CommandAsync(server, "SAVE").ConfigureAwait(false);
                await AddAsync(new DiskRow(ServerSetup.RedisSnapshot.Name, "after SAVE", DiskUse.Of(dump), killed.Entries)).ConfigureAwait(false);
                server.Dispose();
                (server, var saved) = await ServerSteps.StartTimedAsync(ServerSetup.RedisSnapshot, tools, folder, "SIGKILL after SAVE", DiskUse.Of(dump), entries).ConfigureAwait(false);
                await AddAsync(saved).ConfigureAwait(false);
            }
        }
        finally
        {
            server?.Dispose();
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>
    /// Starts <paramref name="setup"/> on the empty <paramref name="folder"/> (a row of its own: the start without
    /// anything to load), writes the entries and waits until they are on disk; measures <paramref name="files"/> then.
    /// </summary>
    private async Task<ServerProcess> FilledAsync(ServerSetup setup, string folder, string files)
    {
        var (server, empty) = await ServerSteps.StartTimedAsync(setup, tools, folder, "— (empty folder)", DiskUse.Of(folder), 0).ConfigureAwait(false);
        try
        {
            await AddAsync(empty).ConfigureAwait(false);
            var took = await ServerSteps.FillAsync(server, entries, ValueBytes).ConfigureAwait(false);
            await log.WriteLineAsync(string.Create(CultureInfo.InvariantCulture, $"{setup.Name}: {entries:N0} entries written in {took.TotalSeconds:0.0} s ({entries / took.TotalSeconds:N0}/s)")).ConfigureAwait(false);
            await ServerSteps.SettleAsync(server, folder).ConfigureAwait(false);
            await AddAsync(new DiskRow(setup.Name, "after the writes", DiskUse.Of(files), entries)).ConfigureAwait(false);
            return server;
        }
        catch
        {
            server.Dispose();
            throw;
        }
    }

    private string NewFolder() => Directory.CreateDirectory(Path.Combine(work, $"load-{++_folders}")).FullName;

    private async Task AddAsync(LoadRow row)
    {
        Loads.Add(row);
        await log.WriteLineAsync(PersistenceReport.Line(row)).ConfigureAwait(false);
    }

    private async Task AddAsync(DiskRow row)
    {
        Disk.Add(row);
        await log.WriteLineAsync(PersistenceReport.Line(row)).ConfigureAwait(false);
    }
}
