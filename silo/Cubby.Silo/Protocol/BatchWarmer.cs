using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Hosting;

namespace Cubby.Silo.Protocol;

/// <summary>
/// Finds the keys of the commands a pipelining connection sent together, before they run, and has their lookups
/// warmed at once (<see cref="LookupPrefetcher"/>). One per connection; it reads the received bytes and changes nothing.
/// </summary>
internal sealed class BatchWarmer(SiloRuntime silo, RespLimits limits) : IDisposable
{
    private readonly RespRequest _scratch = new();
    private readonly LookupPrefetcher _prefetcher = new(silo.Catalog);

    /// <summary>
    /// Warms the lookups of the complete commands at the start of <paramref name="received"/>'s first block, up to
    /// <see cref="LookupPrefetcher.Window"/> of them; returns how many commands it covered, at least one. A command
    /// that goes on into the next block ends the window: it is left to run unwarmed.
    /// </summary>
    public int Warm(ReadOnlySequence<byte> received)
    {
        var block = received.First;
        var start = 0;
        var scanned = 0;
        while (scanned < LookupPrefetcher.Window && start < block.Length)
        {
            var rest = new ReadOnlySequence<byte>(block[start..]);
            if (RespRequestParser.TryParse(rest, _scratch, limits, out var next, out _) != RespParseStatus.Complete)
            {
                break;
            }

            scanned++;
            if (silo.Commands.Find(_scratch[0]) is { Keyed: { } keyed } && _scratch.Count > keyed.FirstKey)
            {
                var key = _scratch[keyed.FirstKey];

                // A command the parser had to copy has its key elsewhere; it runs unwarmed.
                var offset = (long)Unsafe.ByteOffset(ref MemoryMarshal.GetReference(block.Span), ref MemoryMarshal.GetReference(key));
                if (offset >= 0 && offset + key.Length <= block.Length)
                {
                    _prefetcher.Add(key, new Range((int)offset, (int)offset + key.Length));
                }
            }

            start += (int)rest.Slice(0, next).Length;
        }

        _scratch.Reset();
        _prefetcher.Run(block.Span);
        return Math.Max(scanned, 1);
    }

    public void Dispose() => _scratch.Dispose();
}
