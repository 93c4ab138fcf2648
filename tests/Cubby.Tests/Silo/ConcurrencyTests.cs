using System.Globalization;
using Cubby.Resp;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Silo;

public sealed class ConcurrencyTests
{
    private const int Connections = 64;
    private const int OperationsPerConnection = 250;
    private const int OwnedKeysPerConnection = 6;
    private const int SharedCounters = 4;

    [Fact]
    public async Task Concurrent_connections_keep_their_own_keys_exact_and_lose_no_shared_increment()
    {
        // Few slots: every grain is shared by many connections, so their turns really contend.
        await using var silo = await TestSilo.StartAsync(options => options.SlotCount = 4);
        var increments = new long[SharedCounters];
        var clients = new RespTestClient[Connections];
        for (var c = 0; c < Connections; c++)
        {
            clients[c] = await silo.ConnectAsync();
        }

        try
        {
            using var start = new SemaphoreSlim(0, Connections);
            var workers = Enumerable.Range(0, Connections)
                .Select(c => Task.Run(async () =>
                {
                    await start.WaitAsync();
                    return await RunConnectionAsync(clients[c], c, increments);
                }))
                .ToArray();
            start.Release(Connections);
            var models = await Task.WhenAll(workers).WaitAsync(TimeSpan.FromMinutes(2));

            await using var checker = await silo.ConnectAsync();
            for (var c = 0; c < Connections; c++)
            {
                for (var k = 0; k < OwnedKeysPerConnection; k++)
                {
                    var key = OwnedKey(c, k);
                    var actual = await checker.CallAsync("GET", key);
                    Assert.True(
                        models[c].TryGetValue(key, out var expected) ? !actual.IsNull && actual.AsString() == expected : actual.IsNull,
                        $"{key}: expected {(expected is null ? "(nil)" : $"\"{expected}\"")} but got {actual}");
                }
            }

            for (var s = 0; s < SharedCounters; s++)
            {
                var total = Interlocked.Read(ref increments[s]);
                if (total == 0)
                {
                    RespAssert.Null(await checker.CallAsync("GET", SharedKey(s)));
                }
                else
                {
                    RespAssert.Bulk(total.ToString(CultureInfo.InvariantCulture), await checker.CallAsync("GET", SharedKey(s)));
                }
            }
        }
        finally
        {
            foreach (var client in clients)
            {
                await client.DisposeAsync();
            }
        }
    }

    /// <summary>Runs one connection's operations, checking each reply; returns the values its own keys must end with.</summary>
    private static async Task<Dictionary<string, string>> RunConnectionAsync(RespTestClient client, int connection, long[] increments)
    {
        var random = new Random(1000 + connection);
        var model = new Dictionary<string, string>();
        var lastSeen = new long[SharedCounters];
        for (var op = 0; op < OperationsPerConnection; op++)
        {
            var roll = random.Next(100);
            if (roll < 25)
            {
                var s = random.Next(SharedCounters);
                var reply = await client.CallAsync("INCR", SharedKey(s));
                Interlocked.Increment(ref increments[s]);
                Assert.Equal(RespType.Integer, reply.Type);

                // Others increment too, so this connection only knows the counter grows.
                Assert.True(reply.Integer > lastSeen[s], $"{SharedKey(s)} went from {lastSeen[s]} to {reply.Integer}");
                lastSeen[s] = reply.Integer;
                continue;
            }

            var key = OwnedKey(connection, random.Next(OwnedKeysPerConnection));
            model.TryGetValue(key, out var current);
            switch (roll)
            {
                case < 40:
                    var value = RandomValue(random);
                    RespAssert.Ok(await client.CallAsync("SET", key, value));
                    model[key] = value;
                    break;
                case < 60:
                    var got = await client.CallAsync("GET", key);
                    if (current is null)
                    {
                        RespAssert.Null(got);
                    }
                    else
                    {
                        RespAssert.Bulk(current, got);
                    }

                    break;
                case < 75:
                    var incremented = await client.CallAsync("INCR", key);
                    var number = current is null ? 0 : StrictInt64(current);
                    if (number is null)
                    {
                        RespAssert.Error("ERR value is not an integer or out of range", incremented);
                    }
                    else if (number == long.MaxValue)
                    {
                        RespAssert.Error("ERR increment or decrement would overflow", incremented);
                    }
                    else
                    {
                        RespAssert.Integer(number.Value + 1, incremented);
                        model[key] = (number.Value + 1).ToString(CultureInfo.InvariantCulture);
                    }

                    break;
                case < 90:
                    // Appending to a long value would only grow it; start it over instead.
                    var chunk = current is { Length: > 40 } ? null : RandomChunk(random);
                    if (chunk is null)
                    {
                        RespAssert.Integer(1, await client.CallAsync("DEL", key));
                        model.Remove(key);
                        break;
                    }

                    var appended = (current ?? string.Empty) + chunk;
                    RespAssert.Integer(appended.Length, await client.CallAsync("APPEND", key, chunk));
                    model[key] = appended;
                    break;
                default:
                    RespAssert.Integer(current is null ? 0 : 1, await client.CallAsync("DEL", key));
                    model.Remove(key);
                    break;
            }
        }

        return model;
    }

    private static string RandomValue(Random random) => random.Next(4) switch
    {
        0 => random.Next(-1000, 1000).ToString(CultureInfo.InvariantCulture),
        1 => random.NextInt64(long.MaxValue - 5, long.MaxValue).ToString(CultureInfo.InvariantCulture),
        2 => string.Empty,
        _ => RandomChunk(random) + RandomChunk(random),
    };

    // Digits as often as letters, so appends make numbers INCR accepts and ones it refuses ("05", "12ab").
    private static string RandomChunk(Random random)
    {
        var chars = new char[random.Next(1, 5)];
        for (var i = 0; i < chars.Length; i++)
        {
            chars[i] = random.Next(2) == 0 ? (char)('0' + random.Next(10)) : (char)('a' + random.Next(26));
        }

        return new string(chars);
    }

    // Redis's integer rule, written out here rather than borrowed from the silo: "0" or -?[1-9][0-9]*, in range.
    private static long? StrictInt64(string text)
    {
        var digits = text.StartsWith('-') ? text[1..] : text;
        if (digits.Length == 0 || !digits.All(char.IsAsciiDigit) || (digits[0] == '0' && (digits.Length > 1 || text.Length > 1)))
        {
            return null;
        }

        return long.TryParse(text, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out var value) ? value : null;
    }

    private static string OwnedKey(int connection, int index) => $"owned:{connection}:{index}";

    private static string SharedKey(int index) => $"shared:counter:{index}";
}
