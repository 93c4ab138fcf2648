namespace Cubby.Resp;

/// <summary>The type of a RESP value; each member's value is the byte that introduces it on the wire.</summary>
internal enum RespType : byte
{
    /// <summary><c>+text</c>: a short string without CR or LF.</summary>
    SimpleString = (byte)'+',

    /// <summary><c>-message</c>: an error.</summary>
    Error = (byte)'-',

    /// <summary><c>:n</c>: a signed 64-bit integer.</summary>
    Integer = (byte)':',

    /// <summary><c>$len</c> followed by that many bytes: a binary-safe string (<c>$-1</c> is the RESP2 null).</summary>
    BulkString = (byte)'$',

    /// <summary><c>*n</c> followed by n values (<c>*-1</c> is the RESP2 null array).</summary>
    Array = (byte)'*',

    /// <summary><c>_</c>: the RESP3 null.</summary>
    Null = (byte)'_',

    /// <summary><c>#t</c> or <c>#f</c>: a RESP3 boolean.</summary>
    Boolean = (byte)'#',

    /// <summary><c>,value</c>: a RESP3 double, including <c>inf</c>, <c>-inf</c> and <c>nan</c>.</summary>
    Double = (byte)',',

    /// <summary><c>(digits</c>: a RESP3 integer of any size.</summary>
    BigNumber = (byte)'(',

    /// <summary><c>!len</c> followed by that many bytes: a RESP3 binary-safe error.</summary>
    BulkError = (byte)'!',

    /// <summary><c>=len</c> followed by a three-letter format, a colon and the text: a RESP3 verbatim string.</summary>
    VerbatimString = (byte)'=',

    /// <summary><c>%n</c> followed by n key/value pairs: a RESP3 map.</summary>
    Map = (byte)'%',

    /// <summary><c>~n</c> followed by n values: a RESP3 set.</summary>
    Set = (byte)'~',

    /// <summary><c>|n</c> followed by n key/value pairs: RESP3 metadata that precedes a reply.</summary>
    Attribute = (byte)'|',

    /// <summary><c>&gt;n</c> followed by n values: RESP3 out-of-band data such as pub/sub messages.</summary>
    Push = (byte)'>',
}
