using Cubby.Resp;

namespace Cubby.Grains.Commands;

/// <summary>The reply to a container command's HELP subcommand: its lines as an array of simple strings, as Redis answers.</summary>
internal static class HelpReply
{
    public static void Write(RespWriter writer, string[] lines)
    {
        writer.WriteArrayHeader(lines.Length);
        foreach (var line in lines)
        {
            writer.WriteSimpleString(line);
        }
    }
}
