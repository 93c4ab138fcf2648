namespace Cubby.Load.Measurement;

/// <summary>Where, when and how a run was made.</summary>
internal sealed record RunInfo(
    string Date,
    string Machine,
    string Mode,
    int Rounds,
    string Cpu,
    int Cores,
    string Os,
    string Runtime,
    string RedisVersion,
    string GarnetVersion,
    string Silo,
    int ValueBytes,
    int Keys,
    int Callers,
    double DurationSeconds,
    int TimeToLiveMs,
    string LoadAverageBefore,
    string LoadAverageAfter,
    double TotalSeconds,
    double SettleSeconds,
    string? Pinning,
    IReadOnlyDictionary<string, string> Workloads);
