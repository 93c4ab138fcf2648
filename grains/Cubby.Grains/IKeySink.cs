namespace Cubby.Grains;

/// <summary>Receives keys inside the grain's turn (SCAN, KEYS); the span is valid only during the call.</summary>
internal interface IKeySink
{
    void Add(ReadOnlySpan<byte> key);
}
