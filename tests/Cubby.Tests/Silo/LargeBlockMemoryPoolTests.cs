using System.Buffers;
using Cubby.Silo.Protocol;

namespace Cubby.Tests.Silo;

public sealed class LargeBlockMemoryPoolTests
{
    [Fact]
    public void The_block_returned_last_is_rented_first()
    {
        using var pool = new LargeBlockMemoryPool();
        var older = pool.Rent();
        var newer = pool.Rent();
        older.Dispose();
        newer.Dispose();

        using var first = pool.Rent();
        using var second = pool.Rent();

        Assert.Same(newer, first);
        Assert.Same(older, second);
    }

    [Fact]
    public void A_rented_block_is_whole_and_a_larger_request_is_refused()
    {
        using var pool = new LargeBlockMemoryPool();
        using var block = pool.Rent(100);

        Assert.Equal(LargeBlockMemoryPool.BlockSize, block.Memory.Length);
        Assert.Throws<ArgumentOutOfRangeException>(() => pool.Rent(LargeBlockMemoryPool.BlockSize + 1));
    }

    [Fact]
    public void A_disposed_pool_rents_nothing()
    {
        var pool = new LargeBlockMemoryPool();
        var block = pool.Rent();
        pool.Dispose();
        block.Dispose();

        Assert.Throws<ObjectDisposedException>(() => pool.Rent());
    }
}
