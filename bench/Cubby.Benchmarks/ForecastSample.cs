namespace Cubby.Benchmarks;

/// <summary>A typical cached object: a few scalars, a string and a small list.</summary>
internal sealed class ForecastSample
{
    public required string City { get; set; }

    public DateTimeOffset IssuedAt { get; set; }

    public double TemperatureC { get; set; }

    public int Humidity { get; set; }

    public bool Alert { get; set; }

    public required List<string> Hours { get; set; }
}
