using Cubby.Grains;

namespace Cubby.Tests.Grains;

/// <summary>
/// The turns a single-threaded test holds. A shard's entry operations run in a turn its caller took, as a grain call
/// or the RESP door takes one around a command; a test that drives shards directly from one thread takes each shard's
/// turn the first time it uses it and keeps it until the end (turns are re-entrant, so the shard's own upkeep still
/// runs). Tests of concurrent callers take a turn per operation instead, as those callers do.
/// </summary>
internal sealed class HeldTurns : IDisposable
{
    private readonly List<Shard> _held = [];

    /// <summary><paramref name="shard"/>, with its turn held by this thread from now on.</summary>
    public Shard Hold(Shard shard)
    {
        if (!_held.Contains(shard))
        {
            shard.EnterTurn();
            _held.Add(shard);
        }

        return shard;
    }

    public void Dispose()
    {
        foreach (var shard in _held)
        {
            shard.ExitTurn();
        }

        _held.Clear();
    }
}
