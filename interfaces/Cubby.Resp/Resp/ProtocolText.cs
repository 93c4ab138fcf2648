using System.Globalization;

namespace Cubby.Resp;

/// <summary>Text helpers for protocol error messages.</summary>
internal static class ProtocolText
{
    /// <summary>A byte as it should appear in an error message: itself when printable ASCII, else <c>\xHH</c>.</summary>
    public static string Printable(byte value) =>
        value is >= 0x20 and < 0x7F
            ? ((char)value).ToString()
            : string.Create(CultureInfo.InvariantCulture, $"\\x{value:x2}");
}
