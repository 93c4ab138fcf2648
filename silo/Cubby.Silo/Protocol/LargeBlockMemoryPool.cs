using System.Buffers;
using Microsoft.AspNetCore.Connections;

namespace Cubby.Silo.Protocol;

/// <summary>
/// Kestrel's transport receives at most one pool block per read (4 KiB by default), so a pipelined batch of 1 KiB SETs
/// took several reads and several parse passes. Larger pinned blocks let one read take a whole batch, as Redis's 16 KiB
/// query buffer does. Blocks are reused, the one returned last rented first: a batch's replies are written into a block
/// the batch before just sent, still in the cache, where a first-in, first-out queue handed out the block that had sat
/// longest. Renting a returned block allocates nothing.
/// </summary>
internal sealed class LargeBlockMemoryPoolFactory : IMemoryPoolFactory<byte>
{
    public MemoryPool<byte> Create(MemoryPoolOptions? options = null) => new LargeBlockMemoryPool();
}

/// <inheritdoc cref="LargeBlockMemoryPoolFactory" />
internal sealed class LargeBlockMemoryPool : MemoryPool<byte>
{
    public const int BlockSize = 32 * 1024;
    private const int MaxRetained = 4096;
    private readonly Lock _lock = new();
    private readonly Stack<Block> _free = new();
    private bool _disposed;

    public override int MaxBufferSize => BlockSize;

    public override IMemoryOwner<byte> Rent(int minBufferSize = -1)
    {
        ArgumentOutOfRangeException.ThrowIfGreaterThan(minBufferSize, BlockSize);
        ObjectDisposedException.ThrowIf(_disposed, this);
        lock (_lock)
        {
            if (_free.TryPop(out var block))
            {
                return block;
            }
        }

        return new Block(this);
    }

    protected override void Dispose(bool disposing) => _disposed = true;

    private void Return(Block block)
    {
        lock (_lock)
        {
            if (!_disposed && _free.Count < MaxRetained)
            {
                _free.Push(block);
            }
        }
    }

    private sealed class Block(LargeBlockMemoryPool pool) : MemoryManager<byte>
    {
        private readonly byte[] _array = GC.AllocateUninitializedArray<byte>(BlockSize, pinned: true);

        public override Memory<byte> Memory => CreateMemory(BlockSize);

        public override Span<byte> GetSpan() => _array;

        public override unsafe MemoryHandle Pin(int elementIndex = 0) =>
            new(System.Runtime.CompilerServices.Unsafe.AsPointer(ref _array[elementIndex]));

        public override void Unpin()
        {
        }

        /// <summary>Kestrel sends multi-block output as a list of array segments, so the array must be reachable.</summary>
        protected override bool TryGetArray(out ArraySegment<byte> segment)
        {
            segment = new ArraySegment<byte>(_array);
            return true;
        }

        protected override void Dispose(bool disposing) => pool.Return(this);
    }
}
