using BenchmarkDotNet.Running;

namespace Cubby.Benchmarks;

/// <summary>
/// <c>dotnet run -c Release --project bench/Cubby.Benchmarks -- --filter '*SlotOf*'</c>; any BenchmarkDotNet
/// arguments work (<c>--list flat</c>, <c>--job short</c>, <c>--filter '*Store*'</c>).
/// </summary>
internal static class Program
{
    public static void Main(string[] args) => BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
}
