namespace Cubby.Silo.Transactions;

/// <summary>
/// What kept a transaction's commands from running whole: the first error a command got for a shard it could not reach
/// (or that failed for any reason but the command's own), noted where such errors are described
/// (<see cref="Routing.ShardRelay.Describe"/>) while the transaction's commands run in this async flow.
/// </summary>
internal sealed class TransactionFaults
{
    private static readonly AsyncLocal<TransactionFaults?> Running = new();

    /// <summary>The first fault's error text; null while there was none.</summary>
    public string? First { get; private set; }

    /// <summary>Collects the faults of the commands that run from here on in this async flow (and the flows it starts).</summary>
    public static TransactionFaults Collect() => Running.Value = new TransactionFaults();

    /// <summary>Notes <paramref name="error"/> against the transaction running in this flow, if any.</summary>
    public static void Note(string error)
    {
        if (Running.Value is { } faults)
        {
            faults.First ??= error;
        }
    }
}
