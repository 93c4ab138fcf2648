using Cubby.Sharding;

namespace Cubby.Grains;

/// <summary>The shard's side of one factory run per missing key across the cluster (<see cref="IShardGrain.Fill"/>).</summary>
internal sealed partial class ShardGrain
{
    public ValueTask<FillAnswer> Fill(byte[] key, Guid owner, int leaseMilliseconds, bool ignorePresent)
    {
        CheckKey(key);
        if (leaseMilliseconds <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(leaseMilliseconds), $"A fill lease must be positive (was {leaseMilliseconds} ms).");
        }

        var shard = Entries;
        FillAnswer answer;
        using (shard.TakeTurn())
        {
            answer = !ignorePresent && TypedCalls.Get(shard, key, slide: true) is { } entry
                ? new FillAnswer(FillStatus.Found, entry)
                : shard.AskToFill(key, owner, TimeSpan.FromMilliseconds(leaseMilliseconds)) is null ? FillAnswer.Granted : FillAnswer.Busy;
        }

        return AfterSettling(shard, answer, wrote: false);
    }

    // Interleaves with other calls, a transaction's included: it touches no entry, only the lease's wake-up.
    public async ValueTask<bool> AwaitFill(byte[] key, int waitMilliseconds)
    {
        CheckKey(key);
        if (waitMilliseconds < 0)
        {
            throw new ArgumentOutOfRangeException(nameof(waitMilliseconds), $"A wait must not be negative (was {waitMilliseconds} ms).");
        }

        if (_shard is not { IsOpen: true } shard || shard.FillEnding(key) is not { } ending)
        {
            return true;
        }

        try
        {
            await ending.WaitAsync(TimeSpan.FromMilliseconds(waitMilliseconds)).ConfigureAwait(true);
            return true;
        }
        catch (TimeoutException)
        {
            return false;
        }
    }

    public ValueTask GiveUpFill(byte[] key, Guid owner)
    {
        CheckKey(key);
        var shard = Entries;
        using (shard.TakeTurn())
        {
            shard.GiveUpFill(key, owner);
        }

        return ValueTask.CompletedTask;
    }
}
