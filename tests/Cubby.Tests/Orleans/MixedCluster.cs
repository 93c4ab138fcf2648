using Cubby.Grains;
using Cubby.Sharding;
using Cubby.Tests.Infrastructure;

namespace Cubby.Tests.Orleans;

/// <summary>
/// Two Cubby silos (RESP front doors) and a team's plain Orleans silo hosting shards with <c>AddCubby()</c> alone, in
/// one cluster on Development clustering. Shards are placed on all three.
/// </summary>
public sealed class MixedCluster : IAsyncLifetime
{
    private static readonly ShardMap Shards = new(ShardMap.DefaultSlotCount);

    private TestCluster? _cubby;
    private PlainOrleansSilo? _plain;

    public TestSilo First => _cubby!.Silos[0];

    public TestSilo Second => _cubby!.Silos[1];

    public PlainOrleansSilo Plain => _plain!;

    public async Task InitializeAsync()
    {
        _cubby = await TestCluster.StartAsync(2);
        _plain = await PlainOrleansSilo.StartAsync(First.SiloEndpoint);
        await _cubby.WaitForActiveSilosAsync(3);
    }

    /// <summary>
    /// A hash tag whose shard is active on the silo <paramref name="holder"/> names (0 and 1 the Cubby silos, 2 the plain
    /// one): keys <c>{tag}a</c>, <c>{tag}b</c>, ... all live there.
    /// </summary>
    public async Task<string> TagHeldByAsync(int holder)
    {
        await using var client = await First.ConnectAsync();
        for (var i = 0; i < 10_000; i++)
        {
            var tag = $"t{i}";
            await client.CallAsync("EXISTS", $"{{{tag}}}a");
            if (HolderOf(Shards.SlotOf(System.Text.Encoding.UTF8.GetBytes($"{{{tag}}}a"))) == holder)
            {
                return tag;
            }
        }

        throw new InvalidOperationException($"No shard of the first 10000 tags is active on silo {holder}.");
    }

    /// <summary>Which silo holds <paramref name="slot"/> active: 0 or 1 for the Cubby silos, 2 for the plain one, -1 for none.</summary>
    public int HolderOf(int slot)
    {
        ShardCatalog[] catalogs = [First.Runtime.Catalog, Second.Runtime.Catalog, Plain.Catalog];
        return Array.FindIndex(catalogs, catalog => catalog.Find(slot) is { IsOpen: true });
    }

    public async Task DisposeAsync()
    {
        if (_plain is not null)
        {
            await _plain.DisposeAsync();
        }

        if (_cubby is not null)
        {
            await _cubby.DisposeAsync();
        }
    }
}
