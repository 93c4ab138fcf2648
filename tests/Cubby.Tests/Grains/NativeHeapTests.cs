using Cubby.Grains.Storage;

namespace Cubby.Tests.Grains;

public sealed class NativeHeapTests
{
    [Fact]
    public void Trimming_reaches_glibc_on_linux_and_the_heap_stays_usable()
    {
        // CI and the silo's images are glibc Linux: a wrong library or entry name would silently turn the trim off.
        Assert.Equal(OperatingSystem.IsLinux(), NativeHeap.TryTrim());

        using var store = new EntryStore();
        store.Add("k"u8, new byte[3000], default);
        Assert.True(NativeHeap.TryTrim() || !OperatingSystem.IsLinux());
        Assert.Equal(3000, store.ValueAt(store.IndexOf("k"u8)).Length);
    }
}
