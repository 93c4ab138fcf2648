using Orleans;

namespace Cubby.Sharding;

/// <summary>What a shard told a connection when it began to WATCH a key, to tell at EXEC whether the key changed since.</summary>
/// <param name="Stamp">The shard's stamp of the key's last change (unique within the shard's activation).</param>
/// <param name="Existed">Whether the key held a live entry: one that only expires since counts as changed.</param>
[GenerateSerializer, Immutable]
public readonly record struct KeyWatch([property: Id(0)] long Stamp, [property: Id(1)] bool Existed);
