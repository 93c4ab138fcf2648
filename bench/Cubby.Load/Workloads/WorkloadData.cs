using System.Text;

namespace Cubby.Load.Workloads;

/// <summary>The keys and the value every .NET workload uses: N keys under a prefix, one fixed random value.</summary>
internal sealed class WorkloadData
{
    public WorkloadData(string prefix, int keys, int valueBytes, int timeToLiveMs)
    {
        Keys = [.. Enumerable.Range(0, keys).Select(i => $"{prefix}:{i:D6}")];
        KeyBytes = [.. Keys.Select(Encoding.UTF8.GetBytes)];
        Value = new byte[valueBytes];
        new Random(valueBytes).NextBytes(Value);
        TimeToLiveMs = timeToLiveMs;
    }

    public string[] Keys { get; }

    public byte[][] KeyBytes { get; }

    public byte[] Value { get; }

    public int TimeToLiveMs { get; }
}
