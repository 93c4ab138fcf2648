namespace Cubby.Grains.Commands;

/// <summary>Error replies, worded as Redis words them so clients that match on them keep working.</summary>
internal static class ErrorText
{
    public const string NotInteger = "ERR value is not an integer or out of range";
    public const string NotFloat = "ERR value is not a valid float";
    public const string Overflow = "ERR increment or decrement would overflow";
    public const string NotFinite = "ERR increment would produce NaN or Infinity";
    public const string OffsetOutOfRange = "ERR offset is out of range";
    public const string ExpireOptionsNxXx = "ERR NX and XX, GT or LT options at the same time are not compatible";
    public const string ExpireOptionsGtLt = "ERR GT and LT options at the same time are not compatible";
    public const string NoSuchKey = "ERR no such key";
    public const string SameObject = "ERR source and destination objects are the same";
    public const string EmptyKey = "ERR empty keys are not allowed";

    public static string InvalidExpireTime(string command) => $"ERR invalid expire time in '{command}' command";

    public static string ValueTooLarge(int limit) => $"ERR string exceeds maximum allowed size ({limit} bytes, Cubby:MaxValueBytes)";

    public static string KeyTooLong(int length, int limit) => $"ERR key is {length} bytes, over the limit of {limit} bytes (Cubby:MaxKeyBytes)";
}
