using Cubby.Silo.Cluster.Slots;

namespace Cubby.Tests.Cluster;

public sealed class SlotDirectoryTests
{
    [Fact]
    public void Calls_enter_only_held_slots()
    {
        var slots = new SlotDirectory(4, SlotState.Unassigned);
        Assert.False(slots.TryEnter(0));
        slots.Set(0, SlotState.Held);
        Assert.True(slots.TryEnter(0));
        slots.Exit(0);
        slots.Set(1, SlotState.Awaiting, "silo-a");
        Assert.False(slots.TryEnter(1));
        Assert.Equal("silo-a", slots.AwaitedFrom(1));
        slots.Set(1, SlotState.Held);
        Assert.Null(slots.AwaitedFrom(1));
    }

    [Fact]
    public async Task Freezing_waits_for_the_calls_inside_and_keeps_new_ones_out()
    {
        var slots = new SlotDirectory(2, SlotState.Held);
        Assert.True(slots.TryEnter(1));
        var freezing = Task.Run(() => slots.TryFreeze(1));

        // The freeze cannot finish while a call is inside; new calls are already kept out.
        await Cubby.Tests.Client.Poll.UntilAsync(() => slots[1] == SlotState.Frozen, TimeSpan.FromSeconds(10), "the slot to close");
        Assert.False(freezing.IsCompleted);
        Assert.False(slots.TryEnter(1));
        slots.Exit(1);
        Assert.True(await freezing.WaitAsync(TimeSpan.FromSeconds(10)));
        Assert.False(slots.TryFreeze(1));
        Assert.True(slots.TryEnter(0));
        slots.Exit(0);
    }

    [Fact]
    public async Task A_state_change_completes_the_changed_task()
    {
        var slots = new SlotDirectory(2, SlotState.Remote);
        var changed = slots.Changed;
        Assert.False(changed.IsCompleted);
        slots.Set(1, SlotState.Held);
        await changed.WaitAsync(TimeSpan.FromSeconds(10));
        Assert.Equal(1, slots.Count(SlotState.Held));
        Assert.Equal(1, slots.Count(SlotState.Remote));
    }
}
