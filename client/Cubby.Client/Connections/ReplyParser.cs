using System.Buffers;

namespace Cubby.Client.Connections;

/// <summary>Turns one whole reply into a call's result, on the connection's reader thread.</summary>
/// <param name="reply">Exactly one RESP reply.</param>
/// <param name="state">What the call passed along (a destination buffer, for example).</param>
internal delegate T ReplyParser<T>(ReadOnlySequence<byte> reply, object? state);
