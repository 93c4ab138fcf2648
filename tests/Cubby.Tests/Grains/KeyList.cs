using System.Text;
using Cubby.Grains;

namespace Cubby.Tests.Grains;

/// <summary>Collects the keys a grain visits.</summary>
internal sealed class KeyList : IKeySink
{
    public List<string> Keys { get; } = [];

    public void Add(ReadOnlySpan<byte> key) => Keys.Add(Encoding.UTF8.GetString(key));
}
