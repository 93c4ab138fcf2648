namespace Cubby.Resp;

/// <summary>The outcome of reading one CRLF-terminated protocol line.</summary>
internal enum LineStatus
{
    /// <summary>The line and its CRLF were read.</summary>
    Complete,

    /// <summary>No CR has arrived yet within the allowed length, or the LF after it has not arrived.</summary>
    Incomplete,

    /// <summary>The line is longer than allowed.</summary>
    TooLong,

    /// <summary>A CR was followed by something other than LF.</summary>
    MissingLineFeed,

    /// <summary>The line is not a number (only from <see cref="RespLineReader.TryReadNumberLine"/>).</summary>
    InvalidNumber,
}
