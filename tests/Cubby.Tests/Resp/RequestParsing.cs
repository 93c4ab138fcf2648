using System.Buffers;
using System.Text;
using Cubby.Resp;

namespace Cubby.Tests.Resp;

/// <summary>Runs the request parser and captures what it returned in plain values for assertions.</summary>
internal static class RequestParsing
{
    public static ParsedRequest ParseOne(in ReadOnlySequence<byte> buffer, RespLimits? limits = null)
    {
        using var request = new RespRequest();
        return ParseOne(buffer, request, limits);
    }

    public static ParsedRequest ParseOne(in ReadOnlySequence<byte> buffer, RespRequest request, RespLimits? limits = null)
    {
        RespParseStatus status = RespRequestParser.TryParse(buffer, request, limits ?? RespLimits.Default, out SequencePosition consumed, out string? error);
        return new ParsedRequest(status, Arguments(request), buffer.Slice(buffer.Start, consumed).Length, error, request.IsInline);
    }

    /// <summary>Parses commands until the parser stops returning Complete; returns them and the final outcome.</summary>
    public static (List<string[]> Commands, ParsedRequest Last) ParseAll(ReadOnlySequence<byte> buffer, RespLimits? limits = null)
    {
        using var request = new RespRequest();
        var commands = new List<string[]>();
        while (true)
        {
            ParsedRequest parsed = ParseOne(buffer, request, limits);
            if (parsed.Status != RespParseStatus.Complete)
            {
                return (commands, parsed);
            }

            Assert.True(parsed.Consumed > 0, "A complete command consumes bytes.");
            commands.Add(parsed.Arguments);
            buffer = buffer.Slice(parsed.Consumed);
        }
    }

    // Latin-1 maps bytes to chars one to one, so binary arguments compare exactly.
    public static string[] Arguments(RespRequest request)
    {
        var arguments = new string[request.Count];
        for (int i = 0; i < arguments.Length; i++)
        {
            arguments[i] = Encoding.Latin1.GetString(request[i]);
        }

        return arguments;
    }
}
