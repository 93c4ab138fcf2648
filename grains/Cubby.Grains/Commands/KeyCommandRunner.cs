using System.Buffers;
using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>
/// Runs a command on keys on this silo's shards: resolves each key's shard once, takes the shards' turns (several in
/// ascending shard order, so two such commands can never wait for each other), hands them to the handler in its
/// <see cref="CommandContext"/>, and releases them.
/// </summary>
internal static class KeyCommandRunner
{
    /// <summary>Runs the command on <paramref name="shard"/>, whose turn the caller holds, for every one of its keys.</summary>
    public static void RunEntered(Shard shard, KeyCommand command, CommandContext context, RespRequest request)
    {
        context.Enter(shard);
        try
        {
            command.Handler(context, request);
        }
        finally
        {
            context.Leave();
        }

        if (context.TrackReadsFor is { } reader && command.ReadsOnly)
        {
            var last = KeyArguments.Last(command, request.Count);
            for (var argument = command.FirstKey; argument <= last; argument += KeyArguments.Step(command))
            {
                TrackRead(shard, request[argument], reader);
            }
        }
    }

    /// <summary>
    /// Remembers, in the turn of its shard, that <paramref name="reader"/> read <paramref name="key"/> with a read-only
    /// command, so the key's next change is sent to it (CLIENT TRACKING).
    /// </summary>
    private static void TrackRead(Shard shard, ReadOnlySpan<byte> key, SiloAddress reader)
    {
        if (shard.Tracking is not { } tracking)
        {
            return;
        }

        shard.TrackRead(key, tracking.NumberOf(reader));
    }

    /// <summary>Runs a command whose keys are all in shard <paramref name="slot"/> if that shard is active and open here; false when it must go through Orleans.</summary>
    public static bool TryRunHere(ShardCatalog catalog, int slot, KeyCommand command, CommandContext context, RespRequest request)
    {
        if (catalog.Find(slot) is not { } shard || !shard.TryEnterCommandTurn())
        {
            return false;
        }

        try
        {
            RunEntered(shard, command, context, request);
        }
        finally
        {
            shard.ExitTurn();
            context.RanOn(shard, !command.ReadsOnly);
        }

        return true;
    }

    /// <summary>
    /// Runs a command on several keys if every one of their shards is active and open here, holding all their turns;
    /// false when any is not (nothing ran).
    /// </summary>
    public static bool TryRunHere(ShardCatalog catalog, KeyCommand command, CommandContext context, RespRequest request)
    {
        var slotsByArgument = ArrayPool<int>.Shared.Rent(request.Count);
        var slots = ArrayPool<int>.Shared.Rent(request.Count);
        var entered = ArrayPool<Shard>.Shared.Rent(request.Count);
        var held = 0;
        try
        {
            var distinct = 0;
            var last = KeyArguments.Last(command, request.Count);
            var step = KeyArguments.Step(command);
            for (var argument = command.FirstKey; argument <= last; argument += step)
            {
                slots[distinct++] = slotsByArgument[argument] = catalog.ShardMap.SlotOf(request[argument]);
            }

            distinct = SortDistinct(slots.AsSpan(0, distinct));
            foreach (var slot in slots.AsSpan(0, distinct))
            {
                if (catalog.Find(slot) is not { } shard || !shard.TryEnterCommandTurn())
                {
                    return false;
                }

                entered[held++] = shard;
            }

            if (held == 1)
            {
                RunEntered(entered[0], command, context, request);
                return true;
            }

            for (var argument = command.FirstKey; argument <= last; argument += step)
            {
                context.EnterAt(argument, request.Count, entered[slots.AsSpan(0, distinct).BinarySearch(slotsByArgument[argument])]);
            }

            try
            {
                command.Handler(context, request);
            }
            finally
            {
                context.Leave();
            }

            if (context.TrackReadsFor is { } reader && command.ReadsOnly)
            {
                for (var argument = command.FirstKey; argument <= last; argument += step)
                {
                    TrackRead(entered[slots.AsSpan(0, distinct).BinarySearch(slotsByArgument[argument])], request[argument], reader);
                }
            }

            return true;
        }
        finally
        {
            foreach (var shard in entered.AsSpan(0, held))
            {
                shard.ExitTurn();
                context.RanOn(shard, !command.ReadsOnly);
            }

            ArrayPool<Shard>.Shared.Return(entered, clearArray: true);
            ArrayPool<int>.Shared.Return(slots);
            ArrayPool<int>.Shared.Return(slotsByArgument);
        }
    }

    private static int SortDistinct(Span<int> slots)
    {
        slots.Sort();
        var distinct = 0;
        for (var i = 0; i < slots.Length; i++)
        {
            if (i == 0 || slots[i] != slots[i - 1])
            {
                slots[distinct++] = slots[i];
            }
        }

        return distinct;
    }
}
