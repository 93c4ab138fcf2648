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
        // A loop, not FindIndex with a lambda: this runs for every command, and the lambda would capture the shard.
        for (var i = 0; i < _shards.Count; i++)
        {
            if (_shards[i].Shard == shard)
            {
                if (wrote)
                {
                    _shards[i] = (shard, true);
                }

                return;
            }
        }

        _shards.Add((shard, wrote));
    }

    public void Clear() => _shards.Clear();
}
