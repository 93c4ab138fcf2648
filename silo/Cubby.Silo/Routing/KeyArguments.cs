using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Commands;

namespace Cubby.Silo.Routing;

/// <summary>Where a command's keys are among its arguments, from its key specification.</summary>
internal static class KeyArguments
{
    public static List<int> Of(CommandDefinition command, int argumentCount)
    {
        var keys = new List<int>();
        for (var index = command.FirstKey; index <= Last(command, argumentCount); index += Step(command))
        {
            keys.Add(index);
        }

        return keys;
    }

    public static int Count(CommandDefinition command, int argumentCount) =>
        Math.Max(0, (Last(command, argumentCount) - command.FirstKey) / Step(command) + 1);

    /// <summary>Writes the distinct shards of the command's keys into <paramref name="slots"/> in ascending order; returns how many.</summary>
    public static int DistinctSlots(CommandDefinition command, RespRequest request, ShardMap shardMap, int[] slots)
    {
        var count = 0;
        for (var index = command.FirstKey; index <= Last(command, request.Count); index += Step(command))
        {
            slots[count++] = shardMap.SlotOf(request[index]);
        }

        var span = slots.AsSpan(0, count);
        span.Sort();
        var distinct = 0;
        for (var i = 0; i < span.Length; i++)
        {
            if (i == 0 || span[i] != span[i - 1])
            {
                span[distinct++] = span[i];
            }
        }

        return distinct;
    }

    public static bool IsKey(CommandDefinition command, int index, int argumentCount) => index <= Last(command, argumentCount);

    private static int Last(CommandDefinition command, int argumentCount) =>
        Math.Min(command.LastKey < 0 ? argumentCount + command.LastKey : command.LastKey, argumentCount - 1);

    private static int Step(CommandDefinition command) => Math.Max(command.KeyStep, 1);
}
