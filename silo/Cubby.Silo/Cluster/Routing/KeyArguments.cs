using Cubby.Silo.Commands;

namespace Cubby.Silo.Cluster.Routing;

/// <summary>Where a command's keys are among its arguments, from its key specification.</summary>
internal static class KeyArguments
{
    public static List<int> Of(CommandDefinition command, int argumentCount)
    {
        var last = command.LastKey < 0 ? argumentCount + command.LastKey : command.LastKey;
        var keys = new List<int>();
        for (var index = command.FirstKey; index <= last && index < argumentCount; index += Math.Max(command.KeyStep, 1))
        {
            keys.Add(index);
        }

        return keys;
    }
}
