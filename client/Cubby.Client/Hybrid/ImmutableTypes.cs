using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;

namespace Cubby.Client.Hybrid;

/// <summary>
/// Which types HybridCache may hand every caller the same instance of: strings, value types without references
/// (each caller gets a copy), and sealed classes or structs marked <c>[ImmutableObject(true)]</c>. Others are
/// deserialized for each read, so one caller's change cannot reach another.
/// </summary>
internal static class ImmutableTypes
{
    public static bool Of<T>() => Cached<T>.Value;

    private static bool Decide(Type type)
    {
        if (type == typeof(string))
        {
            return true;
        }

        var underlying = Nullable.GetUnderlyingType(type) ?? type;
        return (underlying.IsValueType || (underlying.IsClass && underlying.IsSealed))
            && underlying.GetCustomAttribute<ImmutableObjectAttribute>() is { Immutable: true };
    }

    private static class Cached<T>
    {
        public static readonly bool Value = !RuntimeHelpers.IsReferenceOrContainsReferences<T>() || Decide(typeof(T));
    }
}
