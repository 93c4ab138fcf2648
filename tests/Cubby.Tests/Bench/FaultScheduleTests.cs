using Cubby.Load;
using Cubby.Load.Faults;

namespace Cubby.Tests.Bench;

/// <summary>The fault harness's schedules: drawn from a seed, replayable, every kind asked for before any repeats.</summary>
public sealed class FaultScheduleTests
{
    [Fact]
    public void A_seed_gives_the_same_steps_and_every_kind_comes_once_before_any_comes_again()
    {
        var first = FaultSchedule.Random(62, 3, TimeSpan.FromSeconds(600), FaultSchedule.AllKinds);
        var again = FaultSchedule.Random(62, 3, TimeSpan.FromSeconds(600), FaultSchedule.AllKinds);

        Assert.Equal(first.ToString(), again.ToString());
        Assert.Equal(FaultSchedule.AllKinds.Order(), first.Steps.Take(FaultSchedule.AllKinds.Count).Select(static step => step.Kind).Order());
        Assert.True(first.Steps.Count > FaultSchedule.AllKinds.Count);
        Assert.True(first.Steps.Sum(static step => (step.Hold + step.Gap).TotalSeconds) <= 600);
        Assert.NotEqual(first.ToString(), FaultSchedule.Random(63, 3, TimeSpan.FromSeconds(600), FaultSchedule.AllKinds).ToString());
    }

    [Fact]
    public void Splits_leave_no_silo_on_both_sides_and_a_bridge_outside_both()
    {
        foreach (var seed in Enumerable.Range(1, 50))
        {
            foreach (var step in FaultSchedule.Random(seed, 5, TimeSpan.FromSeconds(300), [FaultKind.Halves, FaultKind.Bridge]).Steps)
            {
                Assert.NotEmpty(step.Nodes);
                Assert.NotEmpty(step.Others);
                Assert.Empty(step.Nodes.Intersect(step.Others));
                Assert.Equal(step.Kind == FaultKind.Bridge ? 4 : 5, step.Nodes.Length + step.Others.Length);
                Assert.True(step.Nodes.Length <= step.Others.Length || step.Kind == FaultKind.Bridge);
            }
        }
    }

    [Fact]
    public void A_schedule_that_cannot_hold_each_kind_or_a_kind_without_enough_silos_is_refused()
    {
        Assert.Contains("at least 70 s", Assert.Throws<HarnessException>(() => FaultSchedule.Random(1, 3, TimeSpan.FromSeconds(60), FaultSchedule.AllKinds)).Message, StringComparison.Ordinal);
        Assert.Contains("needs at least 3 silos", Assert.Throws<HarnessException>(() => FaultSchedule.Random(1, 2, TimeSpan.FromSeconds(120), [FaultKind.Bridge])).Message, StringComparison.Ordinal);
        Assert.Equal([FaultKind.Cut, FaultKind.Kill], FaultSchedule.ParseKinds("cut, KILL"));
        Assert.Throws<HarnessException>(() => FaultSchedule.ParseKinds("flood"));
    }
}
