using System.Globalization;

namespace Cubby.Client;

/// <summary>Parses <c>host:port</c> (and <c>[ipv6]:port</c>).</summary>
internal static class EndpointAddress
{
    public static bool TryParse(string? text, out string host, out int port)
    {
        host = string.Empty;
        port = 0;
        var colon = text?.LastIndexOf(':') ?? -1;
        if (text is null || colon <= 0 || !int.TryParse(text.AsSpan(colon + 1), NumberStyles.None, CultureInfo.InvariantCulture, out port) || port is < 1 or > 65535)
        {
            return false;
        }

        host = text[..colon].Trim('[', ']');
        return host.Length > 0;
    }
}
