using System.Collections.Concurrent;
using System.Text;
using Cubby.Sharding;

namespace Cubby.Tests.Infrastructure;

/// <summary>
/// Counts the shard calls a silo receives (<see cref="IShardGrain"/> calls, and each operation of a client's batch to
/// <see cref="IShardBatchService"/>), so a test can tell whether a client sent anything, and holds calls about a chosen
/// key (a whole batch holding one, or a RESP command a door relays with it first) before they run, so a test can leave
/// a call without an answer.
/// </summary>
public sealed class ShardCallCounter : IIncomingGrainCallFilter
{
    private readonly ConcurrentDictionary<string, HeldKey> _held = new();
    private readonly ConcurrentDictionary<string, long> _byMethod = new();
    private long _calls;

    public long Calls => Interlocked.Read(ref _calls);

    /// <summary>The <see cref="IShardGrain"/> calls of the method named <paramref name="method"/> received.</summary>
    public long CallsOf(string method) => _byMethod.GetValueOrDefault(method);

    public async Task Invoke(IIncomingGrainCallContext context)
    {
        if (context.InterfaceMethod?.DeclaringType == typeof(IShardGrain))
        {
            Interlocked.Increment(ref _calls);
            _byMethod.AddOrUpdate(context.InterfaceMethod.Name, 1, static (_, count) => count + 1);
            if (context.Request.GetArgumentCount() > 0 && context.Request.GetArgument(0) is byte[] key && HeldFor(key) is { } held)
            {
                await held.ArriveAsync();
            }
        }
        else if (context.InterfaceMethod?.DeclaringType == typeof(Cubby.Grains.IShardCommands) && context.Request.GetArgument(0) is Cubby.Grains.Commands.RelayedCommand relayed
            && relayed.Lengths.Length > 1 && HeldFor(relayed.Arguments.AsSpan(relayed.Lengths[0], relayed.Lengths[1]).ToArray()) is { } heldCommand)
        {
            await heldCommand.ArriveAsync();
        }
        else if (context.InterfaceMethod?.DeclaringType == typeof(IShardBatchService) && context.Request.GetArgumentCount() > 0
            && context.Request.GetArgument(0) is ShardOperation[] operations)
        {
            Interlocked.Add(ref _calls, operations.Length);
            foreach (var operation in operations)
            {
                if (HeldFor(operation.Key) is { } held)
                {
                    await held.ArriveAsync();
                }
            }
        }

        await context.Invoke();
    }

    private HeldKey? HeldFor(byte[] key) => !_held.IsEmpty && _held.TryGetValue(Encoding.UTF8.GetString(key), out var held) ? held : null;

    /// <summary>How many shard calls <paramref name="action"/> caused.</summary>
    public async Task<long> CallsDuringAsync(Func<Task> action)
    {
        var before = Calls;
        await action();
        return Calls - before;
    }

    /// <summary>Holds every call whose key is <paramref name="key"/> until the returned object is disposed.</summary>
    public HeldKey Hold(string key) => _held[key] = new HeldKey();

    /// <summary>Calls about one key, held until disposed and let through after; counts every one that reached its shard.</summary>
    public sealed class HeldKey : IDisposable
    {
        private readonly TaskCompletionSource _release = new(TaskCreationOptions.RunContinuationsAsynchronously);
        private int _arrived;

        /// <summary>Calls about the key that reached their shard's turn since the hold began, during it or after.</summary>
        public int Arrived => Volatile.Read(ref _arrived);

        internal Task ArriveAsync()
        {
            Interlocked.Increment(ref _arrived);
            return _release.Task;
        }

        public void Dispose() => _release.TrySetResult();
    }
}
