using System.Globalization;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Client;

/// <summary>Reads the silo's own account of what it saw (INFO, CLIENT LIST) over a plain RESP connection.</summary>
internal static class SiloProbe
{
    /// <summary>One numeric field of an INFO section, such as <c>stats</c> / <c>total_commands_processed</c>.</summary>
    public static async Task<long> InfoAsync(RespTestClient monitor, string section, string field)
    {
        var text = (await monitor.CallAsync("INFO", section)).AsString() ?? string.Empty;
        foreach (var line in text.Split("\r\n"))
        {
            if (line.StartsWith(field + ":", StringComparison.Ordinal))
            {
                return long.Parse(line.AsSpan(field.Length + 1), CultureInfo.InvariantCulture);
            }
        }

        throw new InvalidDataException($"INFO {section} has no {field}: {text}");
    }

    public static Task<long> CommandsProcessedAsync(RespTestClient monitor) => InfoAsync(monitor, "stats", "total_commands_processed");

    /// <summary>The CLIENT LIST lines of every connection but the monitor's own.</summary>
    public static async Task<string[]> OtherClientsAsync(RespTestClient monitor)
    {
        var id = (await monitor.CallAsync("CLIENT", "ID")).Integer;
        var list = (await monitor.CallAsync("CLIENT", "LIST")).AsString() ?? string.Empty;
        return list.Split('\n', StringSplitOptions.RemoveEmptyEntries)
            .Where(line => !line.StartsWith($"id={id} ", StringComparison.Ordinal))
            .ToArray();
    }

    /// <summary>
    /// Counts the commands <paramref name="action"/> makes the silo process: the INFO calls that measure it are
    /// calibrated out by measuring an empty action first.
    /// </summary>
    public static async Task<long> CommandsSentByAsync(RespTestClient monitor, Func<Task> action)
    {
        var first = await CommandsProcessedAsync(monitor);
        var second = await CommandsProcessedAsync(monitor);
        var overhead = second - first;
        await action();
        var third = await CommandsProcessedAsync(monitor);
        return third - second - overhead;
    }

    /// <summary>The raw CUBBY.GET reply for a key: its stored bytes, flags and time to live, as the silo has them.</summary>
    public static async Task<(byte[]? Value, long Flags, long TimeToLiveMs)> RawEntryAsync(RespTestClient monitor, string key)
    {
        var reply = await monitor.CallAsync("CUBBY.GET", key);
        if (reply.IsNull)
        {
            return (null, 0, -2);
        }

        return (reply.Items[0].Bytes.ToArray(), reply.Items[1].Integer, reply.Items[2].Integer);
    }

    public static async Task<bool> ExistsAsync(RespTestClient monitor, string key) => (await monitor.CallAsync("EXISTS", key)).Integer == 1;
}
