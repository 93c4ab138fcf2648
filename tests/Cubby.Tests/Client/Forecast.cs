namespace Cubby.Tests.Client;

/// <summary>A typical cached object: a record with a nested collection and a nullable member.</summary>
public sealed record Forecast(string City, DateTimeOffset IssuedAt, IReadOnlyList<double> HourlyCelsius, string? Warning)
{
    public bool Matches(Forecast other) =>
        City == other.City && IssuedAt == other.IssuedAt && HourlyCelsius.SequenceEqual(other.HourlyCelsius) && Warning == other.Warning;
}
