using Cubby.Grains.Capacity;

namespace Cubby.Tests.Grains;

public sealed class MemoryBudgetTests
{
    [Theory]
    [InlineData(0)]
    [InlineData(-1)]
    public void A_budget_must_be_positive(long limit)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new MemoryBudget(limit));
    }

    [Fact]
    public void TryCharge_succeeds_up_to_the_limit_and_charges_nothing_past_it()
    {
        var budget = new MemoryBudget(100);

        Assert.True(budget.TryCharge(60));
        Assert.False(budget.TryCharge(41));
        Assert.Equal(60, budget.Used);
        Assert.Equal(40, budget.Available);
        Assert.True(budget.TryCharge(40));
        Assert.Equal(100, budget.Used);
        Assert.False(budget.TryCharge(1));
        Assert.Equal(0, budget.Available);
    }

    [Fact]
    public void Blocks_kept_for_reuse_come_out_of_what_entries_may_charge()
    {
        var budget = new MemoryBudget(100, keptForReuse: 20);

        Assert.Equal(100, budget.Limit);
        Assert.Equal(80, budget.Ceiling);
        Assert.True(budget.TryCharge(80));
        Assert.False(budget.TryCharge(1));
        Assert.Equal(0, budget.Available);
    }

    [Theory]
    [InlineData(-1)]
    [InlineData(51)]
    public void What_is_kept_for_reuse_is_at_most_half_the_budget(long keptForReuse)
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new MemoryBudget(100, keptForReuse));
    }

    [Fact]
    public void Release_and_a_negative_charge_give_bytes_back()
    {
        var budget = new MemoryBudget(100);
        budget.TryCharge(100);

        budget.Release(30);
        Assert.Equal(70, budget.Used);
        Assert.True(budget.TryCharge(-20));
        Assert.Equal(50, budget.Used);
        Assert.True(budget.TryCharge(0));
        Assert.Equal(50, budget.Used);
    }

    [Fact]
    public void Concurrent_charges_never_pass_the_limit()
    {
        const long limit = 100_003;
        var budget = new MemoryBudget(limit);
        var charged = new long[4];
        var exceeded = 0;
        Concurrently.Run(charged.Length, t =>
        {
            var size = 3 + t;
            for (var i = 0; i < 50_000; i++)
            {
                if (budget.TryCharge(size))
                {
                    charged[t] += size;
                    if (budget.Used > limit)
                    {
                        Volatile.Write(ref exceeded, 1);
                    }

                    if (i % 3 == 0)
                    {
                        budget.Release(size);
                        charged[t] -= size;
                    }
                }
            }
        });

        Assert.Equal(0, exceeded);
        Assert.Equal(charged.Sum(), budget.Used);
        Assert.InRange(budget.Used, limit / 2, limit);
    }
}
