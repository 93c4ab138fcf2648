using System.Net;
using Cubby.Grains.Placement;
using Xunit.Abstractions;

namespace Cubby.Tests.Interfaces;

// Rendezvous placement of shards over silos (ShardHomes.Choose, which the placement director uses). The id sets are fixed, so every number here is deterministic;
// the bounds leave room for other realistic id sets (see the comments on each bound).
public sealed class PlacementTests(ITestOutputHelper output)
{
    public static TheoryData<int> SlotCounts => new() { 1024, 16384 };

    public static TheoryData<string, int> IdSetsAndSlotCounts()
    {
        var data = new TheoryData<string, int>();
        foreach (var set in IdSets.Keys)
        {
            data.Add(set, 1024);
            data.Add(set, 16384);
        }

        return data;
    }

    /// <summary>Orleans silo addresses in four shapes a real cluster could have.</summary>
    private static readonly Dictionary<string, Func<int, SiloAddress>> IdSets = new()
    {
        ["one host, ports 11111+"] = k => SiloAddress.New(new IPEndPoint(IPAddress.Loopback, 11111 + k), 123456 + (k * 37)),
        ["hosts 10.0.0.x, port 11111"] = k => SiloAddress.New(new IPEndPoint(IPAddress.Parse($"10.0.0.{11 + k}"), 11111), 123456 + (k * 1009)),
        ["same generation"] = k => SiloAddress.New(new IPEndPoint(IPAddress.Loopback, 11111 + k), 123456),
        ["pods, restarts days apart"] = k => SiloAddress.New(new IPEndPoint(IPAddress.Parse($"10.{1 + k}.{(k * 7) % 256}.5"), 11111), 123456 + (k * 86_400) + (k * k * 7)),
    };

    [Theory]
    [MemberData(nameof(IdSetsAndSlotCounts))]
    public void Slots_spread_evenly_over_2_to_10_silos(string idSet, int slotCount)
    {
        // Each silo's share is Binomial(slots, 1/N): at 1024 slots and 10 silos the mean is 102 and sigma ~9.6, so
        // 1.30 x mean is ~3 sigma; at 16384 slots sigma is ~2.3% of the mean, so 1.10 is ~4 sigma.
        var maxRatio = slotCount == 1024 ? 1.30 : 1.10;
        var minRatio = slotCount == 1024 ? 0.70 : 0.90;
        var worstMax = 0.0;
        var worstMin = double.MaxValue;
        for (var n = 2; n <= 10; n++)
        {
            var view = View(slotCount, Silos(idSet, n));
            var shares = new int[n];
            for (var slot = 0; slot < slotCount; slot++)
            {
                shares[view.OwnerIndexOf(slot)]++;
            }

            var mean = (double)slotCount / n;
            var max = shares.Max() / mean;
            var min = shares.Min() / mean;
            worstMax = Math.Max(worstMax, max);
            worstMin = Math.Min(worstMin, min);
            output.WriteLine($"{idSet}, {slotCount} slots, {n} silos: shares [{string.Join(' ', shares)}], max/mean {max:F3}, min/mean {min:F3}");
            Assert.InRange(max, 1.0, maxRatio);
            Assert.InRange(min, minRatio, 1.0);
        }

        output.WriteLine($"worst max/mean {worstMax:F3}, worst min/mean {worstMin:F3}");
    }

    [Theory]
    [MemberData(nameof(IdSetsAndSlotCounts))]
    public void A_joining_silo_takes_about_its_share_and_only_slots_it_now_owns_move(string idSet, int slotCount)
    {
        // The moved count is Binomial(slots, 1/(N+1)): at 1024 slots and N+1 = 11 the mean is 93 and sigma ~9, so
        // +-40% is ~4 sigma; at 16384 slots sigma is ~3% of the mean and +-15% is ~5 sigma.
        var tolerance = slotCount == 1024 ? 0.40 : 0.15;
        for (var n = 1; n <= 9; n++)
        {
            var before = View(slotCount, Silos(idSet, n));
            var joined = Silos(idSet, n + 1);
            var after = View(slotCount, joined);
            var newcomer = joined[^1].ToParsableString();
            var moved = 0;
            for (var slot = 0; slot < slotCount; slot++)
            {
                if (before.OwnerOf(slot).Id != after.OwnerOf(slot).Id)
                {
                    Assert.Equal(newcomer, after.OwnerOf(slot).Id);
                    moved++;
                }
            }

            var fraction = (double)moved / slotCount;
            var ideal = 1.0 / (n + 1);
            output.WriteLine($"{idSet}, {slotCount} slots, {n} -> {n + 1} silos: {moved} slots moved ({fraction:P2}; ideal {ideal:P2}, ratio {fraction / ideal:F3})");
            Assert.InRange(fraction, ideal * (1 - tolerance), ideal * (1 + tolerance));
        }
    }

    [Theory]
    [MemberData(nameof(IdSetsAndSlotCounts))]
    public void A_leaving_silo_moves_only_its_own_slots(string idSet, int slotCount)
    {
        for (var n = 2; n <= 10; n++)
        {
            var silos = Silos(idSet, n);
            var before = View(slotCount, silos);
            for (var leaving = 0; leaving < n; leaving++)
            {
                var remaining = silos.Where((_, i) => i != leaving).ToList();
                var after = View(slotCount, remaining);
                var moved = 0;
                for (var slot = 0; slot < slotCount; slot++)
                {
                    var owner = before.OwnerOf(slot).Id;
                    if (owner == silos[leaving].ToParsableString())
                    {
                        moved++;
                    }
                    else
                    {
                        Assert.Equal(owner, after.OwnerOf(slot).Id);
                    }
                }

                Assert.True(moved > 0);
            }
        }

        output.WriteLine($"{idSet}, {slotCount} slots: every leave from 2..10 silos moved only the leaver's slots");
    }

    [Theory]
    [MemberData(nameof(IdSetsAndSlotCounts))]
    public void Owners_do_not_depend_on_the_order_of_the_silos(string idSet, int slotCount)
    {
        var random = new Random(1234);
        for (var n = 2; n <= 10; n++)
        {
            var silos = Silos(idSet, n);
            var sorted = View(slotCount, silos.OrderBy(silo => silo.ToParsableString(), StringComparer.Ordinal).ToList());
            for (var round = 0; round < 5; round++)
            {
                var shuffled = silos.ToArray();
                random.Shuffle(shuffled);
                var view = View(slotCount, shuffled);
                for (var slot = 0; slot < slotCount; slot++)
                {
                    Assert.Equal(sorted.OwnerOf(slot).Id, view.OwnerOf(slot).Id);
                }
            }
        }
    }

    [Fact]
    public void A_fourth_silo_joining_three_takes_about_a_quarter_of_the_slots()
    {
        foreach (var idSet in IdSets.Keys)
        {
            foreach (var slotCount in new[] { 1024, 16384 })
            {
                var before = View(slotCount, Silos(idSet, 3));
                var after = View(slotCount, Silos(idSet, 4));
                var moved = Enumerable.Range(0, slotCount).Count(slot => before.OwnerOf(slot).Id != after.OwnerOf(slot).Id);
                output.WriteLine($"{idSet}, {slotCount} slots, 3 -> 4 silos: {moved} slots moved ({(double)moved / slotCount:P2} of the keys)");
                Assert.InRange((double)moved / slotCount, 0.25 * 0.75, 0.25 * 1.25);
            }
        }
    }

    private static List<SiloAddress> Silos(string idSet, int count) => [.. Enumerable.Range(0, count).Select(k => IdSets[idSet](k))];

    private static Homes View(int slotCount, IReadOnlyList<SiloAddress> silos) => new(slotCount, silos);

    /// <summary>Every shard's home among <c>silos</c>.</summary>
    private sealed class Homes(int slotCount, IReadOnlyList<SiloAddress> silos)
    {
        public int SlotCount => slotCount;

        public Owner OwnerOf(int slot) => new(ShardHomes.Choose(slot, silos).ToParsableString());

        public int OwnerIndexOf(int slot) => silos.ToList().IndexOf(ShardHomes.Choose(slot, silos));
    }

    private sealed record Owner(string Id);
}
