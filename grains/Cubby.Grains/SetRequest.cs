using Cubby.Grains.Storage;

namespace Cubby.Grains;

/// <summary>A write: its condition, expiry and flags.</summary>
internal readonly record struct SetRequest(WriteCondition Condition, ExpirySpec Expiry, uint Flags = 0);
