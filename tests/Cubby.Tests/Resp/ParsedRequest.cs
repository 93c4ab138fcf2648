using Cubby.Resp;

namespace Cubby.Tests.Resp;

/// <summary>What one call to the request parser returned; arguments as Latin-1 strings (one char per byte).</summary>
internal sealed record ParsedRequest(RespParseStatus Status, string[] Arguments, long Consumed, string? Error, bool IsInline);
