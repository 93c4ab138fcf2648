namespace Cubby.Grains;

/// <summary>
/// The shards a reply waits for before it goes out (<see cref="Shard.WhenSettledAsync"/>), each noted once, as written
/// to when any call noted on it wrote.
/// </summary>
internal sealed class UnsettledShards
{
    private readonly List<(Shard Shard, bool Wrote)> _shards = [];

    public int Count => _shards.Count;

    public (Shard Shard, bool Wrote) this[int index] => _shards[index];

    /// <summary>A call that <paramref name="wrote"/> or only read ran on <paramref name="shard"/>, which it must wait for (<see cref="Shard.MustSettle"/>).</summary>
    public void Note(Shard shard, bool wrote)
    {
        var index = _shards.FindIndex(noted => noted.Shard == shard);
        if (index < 0)
        {
            _shards.Add((shard, wrote));
        }
        else if (wrote)
        {
            _shards[index] = (shard, true);
        }
    }

    public void Clear() => _shards.Clear();
}
