using System.Buffers;
using System.Globalization;
using Cubby.Client;
using Cubby.Client.Connections;
using Cubby.Cluster;
using Cubby.Silo.Cluster.Slots;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Cluster.Handoff;

/// <summary>
/// Moves the slots this silo holds but no longer owns to their new owners: freezes a slot (its calls wait), streams its
/// entries in bounded chunks, and once the new owner has installed them and said so, drops the grain and forwards
/// later calls there. Runs after every view change and every second, so a failed handoff is retried.
/// </summary>
internal sealed partial class HandoffSender(SiloRuntime silo, ILogger<HandoffSender> logger) : IDisposable
{
    private static readonly TimeSpan RetryEvery = TimeSpan.FromSeconds(1);
    private TaskCompletionSource _signal = new(TaskCreationOptions.RunContinuationsAsynchronously);
    private readonly CancellationTokenSource _stopping = new();
    private Task? _loop;

    public void Start() => _loop ??= Task.Run(RunAsync);

    /// <summary>Looks for slots to move now rather than at the next retry.</summary>
    public void Signal() => Volatile.Read(ref _signal).TrySetResult();

    public async Task StopAsync()
    {
        await _stopping.CancelAsync().ConfigureAwait(false);
        if (_loop is not null)
        {
            await _loop.ConfigureAwait(false);
        }
    }

    public void Dispose()
    {
        _stopping.Cancel();
        _stopping.Dispose();
    }

    private async Task RunAsync()
    {
        var token = _stopping.Token;
        while (!token.IsCancellationRequested)
        {
            try
            {
                await Volatile.Read(ref _signal).Task.WaitAsync(RetryEvery, silo.Time, token).ConfigureAwait(false);
            }
            catch (OperationCanceledException)
            {
                return;
            }
            catch (TimeoutException)
            {
                // The periodic retry.
            }

            Interlocked.Exchange(ref _signal, new(TaskCreationOptions.RunContinuationsAsynchronously));

            try
            {
                await MoveSlotsAsync().ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                Log.PassFailed(logger, exception);
            }
        }
    }

    private async Task MoveSlotsAsync()
    {
        var cluster = silo.Cluster;
        if (cluster.View is not { } view || cluster.IsFenced)
        {
            return;
        }

        var byTarget = new Dictionary<SiloEndpoint, List<int>>();
        for (var slot = 0; slot < view.SlotCount; slot++)
        {
            var owner = view.OwnerOf(slot);
            if (cluster.Slots[slot] == SlotState.Held && owner.Id != cluster.SelfId)
            {
                if (!byTarget.TryGetValue(owner, out var slots))
                {
                    byTarget[owner] = slots = [];
                }

                slots.Add(slot);
            }
        }

        await Task.WhenAll(byTarget.Select(target => MoveToAsync(target.Key, target.Value, view.Version))).ConfigureAwait(false);
    }

    private async Task MoveToAsync(SiloEndpoint target, List<int> slots, long viewVersion)
    {
        var connection = silo.Links.Control(target.Host, target.Port);
        var empty = new List<int>();
        foreach (var slot in slots)
        {
            if (silo.Catalog.Find(slot) is { Count: > 0 })
            {
                if (!await MoveSlotAsync(connection, target, slot, viewVersion).ConfigureAwait(false))
                {
                    return;
                }
            }
            else if (silo.Cluster.Slots.TryFreeze(slot))
            {
                empty.Add(slot);
            }
        }

        if (empty.Count > 0)
        {
            await MoveEmptySlotsAsync(connection, target, empty).ConfigureAwait(false);
        }
    }

    /// <summary>Hands one slot over; false when the target could not take it (it stays here and is retried).</summary>
    private async Task<bool> MoveSlotAsync(CubbyConnection connection, SiloEndpoint target, int slot, long viewVersion)
    {
        var slots = silo.Cluster.Slots;
        if (!slots.TryFreeze(slot))
        {
            return true;
        }

        if (silo.Cluster.View?.OwnerOf(slot).Id != target.Id)
        {
            // The view moved on since this pass began: the next pass sends the slot where it belongs now.
            slots.Set(slot, SlotState.Held);
            return true;
        }

        var started = silo.Time.GetTimestamp();
        var grain = silo.Catalog.Find(slot);
        var entries = 0L;
        try
        {
            await SendAsync(connection, HandoffProtocol.Begin(slot, viewVersion)).ConfigureAwait(false);
            if (grain is not null)
            {
                entries = grain.Count;
                var chunk = new ArrayBufferWriter<byte>(silo.Options.Clustering.HandoffChunkBytes + 4096);
                var cursor = 0;
                while (grain.WriteChunk(ref cursor, silo.Options.Clustering.HandoffChunkBytes, chunk))
                {
                    await SendAsync(connection, HandoffProtocol.Chunk(slot, chunk.WrittenSpan)).ConfigureAwait(false);
                    chunk.ResetWrittenCount();
                }
            }

            await SendAsync(connection, HandoffProtocol.End(slot, entries)).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is CubbyException or TimeoutException or ObjectDisposedException)
        {
            slots.Set(slot, SlotState.Held);
            Log.SlotFailed(logger, slot, target.ToString(), exception.Message);
            return false;
        }

        silo.Catalog.Detach(slot)?.Dispose();
        Release(slot, target);
        silo.Statistics.HandedOff(entries);
        Log.SlotMoved(logger, slot, entries, target.ToString(), silo.Time.GetElapsedTime(started).TotalMilliseconds);
        return true;
    }

    private async Task MoveEmptySlotsAsync(CubbyConnection connection, SiloEndpoint target, List<int> empty)
    {
        var slots = silo.Cluster.Slots;
        try
        {
            await SendAsync(connection, HandoffProtocol.Empty(empty)).ConfigureAwait(false);
        }
        catch (Exception exception) when (exception is CubbyException or TimeoutException or ObjectDisposedException)
        {
            foreach (var slot in empty)
            {
                slots.Set(slot, SlotState.Held);
            }

            Log.SlotFailed(logger, empty[0], target.ToString(), exception.Message);
            return;
        }

        foreach (var slot in empty)
        {
            silo.Catalog.Detach(slot)?.Dispose();
            Release(slot, target);
            silo.Statistics.HandedOff(0);
        }
    }

    /// <summary>
    /// After a slot went to <paramref name="target"/>: calls go there from now on, unless the view gave the slot back to
    /// this silo meanwhile, in which case it awaits the slot back from the target.
    /// </summary>
    private void Release(int slot, SiloEndpoint target)
    {
        var cluster = silo.Cluster;
        lock (cluster.Transitions)
        {
            if (cluster.View?.OwnerOf(slot).Id == cluster.SelfId)
            {
                cluster.Slots.Set(slot, SlotState.Awaiting, target.Id);
            }
            else
            {
                cluster.Slots.Set(slot, SlotState.Remote);
            }
        }
    }

    private static async Task SendAsync(CubbyConnection connection, ReadOnlyMemory<byte> command)
    {
        // The command is encoded on this thread into the shared command buffer and copied when queued.
        await connection.ExecuteAsync(command.Span, Replies.Ok, null, CancellationToken.None).ConfigureAwait(false);
    }

    private static partial class Log
    {
        [LoggerMessage(1, LogLevel.Debug, "Slot {Slot}: {Entries} entries handed off to {Target} in {Milliseconds:0.0} ms")]
        public static partial void SlotMoved(ILogger logger, int slot, long entries, string target, double milliseconds);

        [LoggerMessage(2, LogLevel.Warning, "Handing slot {Slot} off to {Target} failed; it stays here and is retried: {Reason}")]
        public static partial void SlotFailed(ILogger logger, int slot, string target, string reason);

        [LoggerMessage(3, LogLevel.Error, "A handoff pass failed")]
        public static partial void PassFailed(ILogger logger, Exception exception);
    }
}
