namespace Cubby.Grains;

/// <summary>When a write applies.</summary>
internal enum WriteCondition
{
    Always,
    IfAbsent,
    IfPresent,
}

/// <summary>What <see cref="Shard.Set{TReader}"/> did.</summary>
internal enum SetStatus
{
    NotStored,
    Created,
    Updated,
    OutOfMemory,
}

/// <summary>Which entries an EXPIRE-family call applies to (Redis's NX, XX, GT, LT).</summary>
internal enum ExpireCondition
{
    Always,
    IfNoExpiry,
    IfHasExpiry,
    IfGreater,
    IfLess,
    IfLessWithExpiry,
}

/// <summary>The outcome of a read-modify-write on a value (INCR, APPEND, SETRANGE, ...).</summary>
internal enum UpdateStatus
{
    Ok,
    NotInteger,
    NotFloat,
    Overflow,
    NotFinite,
    TooLarge,
    OutOfMemory,
}
