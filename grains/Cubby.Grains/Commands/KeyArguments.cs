namespace Cubby.Grains.Commands;

/// <summary>Where a command's keys are among its arguments, from its key specification.</summary>
internal static class KeyArguments
{
    public static List<int> Of(KeyCommand command, int argumentCount)
    {
        var keys = new List<int>();
        for (var index = command.FirstKey; index <= Last(command, argumentCount); index += Step(command))
        {
            keys.Add(index);
        }

        return keys;
    }

    public static bool IsKey(KeyCommand command, int index, int argumentCount) => index <= Last(command, argumentCount);

    /// <summary>The index of the command's last key argument in a request of <paramref name="argumentCount"/> arguments.</summary>
    public static int Last(KeyCommand command, int argumentCount) =>
        Math.Min(command.LastKey < 0 ? argumentCount + command.LastKey : command.LastKey, argumentCount - 1);

    /// <summary>The distance between key arguments.</summary>
    public static int Step(KeyCommand command) => Math.Max(command.KeyStep, 1);
}
