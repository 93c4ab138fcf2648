using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Tracking;

/// <summary>
/// CLIENT TRACKING, CACHING, TRACKINGINFO and GETREDIR, as Redis 7 has them. Default mode: every key a tracking
/// connection reads (with a read-only command, on any silo's shard) is remembered, and its next change, of any kind
/// (a write, a delete, expiry, eviction, a flush, its shard moving), is pushed to the connection once. BCAST mode:
/// every change of a key with one of the connection's prefixes (any key without one) is pushed, read or not.
/// </summary>
internal static class TrackingCommands
{
    /// <summary>CLIENT TRACKING ON|OFF [REDIRECT id] [BCAST] [PREFIX prefix ...] [OPTIN] [OPTOUT] [NOLOOP].</summary>
    public static void Tracking(ClientSession session, RespRequest request)
    {
        var writer = session.Writer;
        if (request.Count < 3)
        {
            writer.WriteError(RedisErrors.WrongArity("client|tracking"));
            return;
        }

        bool on;
        if (AsciiIgnoreCaseComparer.IsKeyword(request[2], "ON"))
        {
            on = true;
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(request[2], "OFF"))
        {
            on = false;
        }
        else
        {
            writer.WriteError(RedisErrors.Syntax);
            return;
        }

        long redirect = 0;
        bool optIn = false, optOut = false, noLoop = false, broadcast = false;
        var prefixes = new List<byte[]>();
        for (var i = 3; i < request.Count; i++)
        {
            var option = request[i];
            if (AsciiIgnoreCaseComparer.IsKeyword(option, "REDIRECT") && i + 1 < request.Count)
            {
                if (!Arguments.TryInt64(session.Context, request[++i], out redirect))
                {
                    return;
                }
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "OPTIN"))
            {
                optIn = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "OPTOUT"))
            {
                optOut = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "NOLOOP"))
            {
                noLoop = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "BCAST"))
            {
                broadcast = true;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(option, "PREFIX") && i + 1 < request.Count)
            {
                prefixes.Add(request[++i].ToArray());
            }
            else
            {
                writer.WriteError(RedisErrors.Syntax);
                return;
            }
        }

        var silo = session.Silo;
        if (!on)
        {
            if (session.Tracking is { } off)
            {
                silo.TrackedKeys.Forget(session);
                session.Tracking = null;
                if (off.Broadcast)
                {
                    session.Defer(ListenAsync(session, null));
                    return;
                }
            }

            writer.WriteOk();
            return;
        }

        if (RefusalOf(session, redirect, optIn, optOut, broadcast, prefixes) is { } refusal)
        {
            writer.WriteError(refusal);
            return;
        }

        var tracking = session.Tracking ??= new ClientTracking();
        (tracking.Enabled, tracking.RedirectId, tracking.OptIn, tracking.OptOut, tracking.NoLoop, tracking.BrokenRedirect, tracking.Broadcast) =
            (true, redirect, optIn, optOut, noLoop, false, broadcast);
        if (!broadcast)
        {
            writer.WriteOk();
            return;
        }

        tracking.Prefixes.AddRange(prefixes.Where(prefix => !tracking.Prefixes.Contains(prefix, Text.ByteStringComparer.Instance)));
        session.Defer(ListenAsync(session, [.. tracking.Prefixes]));
    }

    /// <summary>Why CLIENT TRACKING ON with these options is refused, in Redis's words; null when it is not.</summary>
    private static string? RefusalOf(ClientSession session, long redirect, bool optIn, bool optOut, bool broadcast, List<byte[]> prefixes)
    {
        var silo = session.Silo;
        if (prefixes.Count > 0 && !broadcast)
        {
            return "ERR PREFIX option requires BCAST mode to be enabled";
        }

        if (optIn && optOut)
        {
            return "ERR You can't specify both OPTIN mode and OPTOUT mode";
        }

        if (broadcast && (optIn || optOut))
        {
            return "ERR OPTIN and OPTOUT are not compatible with BCAST";
        }

        if (redirect != 0 && (redirect == session.Id || silo.Clients.Find(redirect) is null))
        {
            return redirect == session.Id ? "ERR A client cannot redirect tracking to itself" : "ERR The client ID you want redirect to does not exist";
        }

        if (silo.Tracking is null)
        {
            return "ERR tracking needs an Orleans silo around the shards";
        }

        if (session.Tracking is { Enabled: true } current)
        {
            if (current.Broadcast != broadcast)
            {
                return "ERR You can't switch BCAST mode on/off before disabling tracking for this client, and then re-enabling it with a different mode.";
            }

            if (current.OptIn != optIn || current.OptOut != optOut)
            {
                return "ERR You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then re-enabling it with a different mode.";
            }
        }

        return broadcast ? PrefixOverlap(session.Tracking is { Enabled: true } on ? on.Prefixes : [], prefixes) : null;
    }

    /// <summary>As Redis: one connection's prefixes must not overlap, neither with those it has nor with each other.</summary>
    private static string? PrefixOverlap(List<byte[]> existing, List<byte[]> added)
    {
        static bool Overlap(byte[] a, byte[] b) => !a.AsSpan().SequenceEqual(b) && (a.AsSpan().StartsWith(b) || b.AsSpan().StartsWith(a));

        for (var i = 0; i < added.Count; i++)
        {
            if (existing.FirstOrDefault(prefix => Overlap(prefix, added[i])) is { } clash)
            {
                return $"ERR Prefix '{RedisErrors.Printable(added[i])}' overlaps with an existing prefix '{RedisErrors.Printable(clash)}'. Prefixes for a single client must not overlap.";
            }

            for (var j = i + 1; j < added.Count; j++)
            {
                if (Overlap(added[i], added[j]))
                {
                    return $"ERR Prefix '{RedisErrors.Printable(added[i])}' overlaps with another provided prefix '{RedisErrors.Printable(added[j])}'. Prefixes for a single client must not overlap.";
                }
            }
        }

        return null;
    }

    /// <summary>Tells every silo what this silo's BCAST connections listen to now, then answers OK.</summary>
    private static async ValueTask ListenAsync(ClientSession session, byte[][]? prefixes)
    {
        await session.Silo.Broadcasts.SetAsync(session, prefixes).ConfigureAwait(false);
        await session.ReplyTurnAsync().ConfigureAwait(false);
        session.Writer.WriteOk();
    }

    /// <summary>CLIENT CACHING YES|NO: whether the next command's reads are tracked, in OPTIN or OPTOUT mode.</summary>
    public static void Caching(ClientSession session, RespRequest request)
    {
        var writer = session.Writer;
        if (!Arguments.CheckArity(session.Context, request, 3, "client|caching"))
        {
            return;
        }

        var yes = AsciiIgnoreCaseComparer.IsKeyword(request[2], "YES");
        if (!yes && !AsciiIgnoreCaseComparer.IsKeyword(request[2], "NO"))
        {
            writer.WriteError(RedisErrors.Syntax);
        }
        else if (session.Tracking is not { Enabled: true } tracking || !(tracking.OptIn || tracking.OptOut))
        {
            writer.WriteError("ERR CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or OPTOUT mode enabled");
        }
        else if (yes ? !tracking.OptIn : !tracking.OptOut)
        {
            writer.WriteError(yes ? "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode." : "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
        }
        else
        {
            tracking.SetCaching(yes);
            writer.WriteOk();
        }
    }

    /// <summary>CLIENT TRACKINGINFO: the flags, the redirect and the BCAST prefixes.</summary>
    public static void TrackingInfo(ClientSession session, RespRequest request)
    {
        if (!Arguments.CheckArity(session.Context, request, 2, "client|trackinginfo"))
        {
            return;
        }

        var writer = session.Writer;
        var tracking = session.Tracking is { Enabled: true } on ? on : null;
        List<string> flags = tracking is null ? ["off"] : ["on"];
        if (tracking is not null)
        {
            flags.AddRange(new[] { (tracking.Broadcast, "bcast"), (tracking.OptIn, "optin"), (tracking.OptOut, "optout"), (tracking.CachingNext == true, "caching-yes"), (tracking.CachingNext == false, "caching-no"), (tracking.NoLoop, "noloop"), (tracking.BrokenRedirect, "broken_redirect") }
                .Where(static flag => flag.Item1).Select(static flag => flag.Item2));
        }

        writer.WriteMapHeader(3);
        writer.WriteBulkString("flags"u8);
        writer.WriteSetHeader(flags.Count);
        foreach (var flag in flags)
        {
            writer.WriteBulkString(flag);
        }

        writer.WriteBulkString("redirect"u8);
        writer.WriteInteger(tracking is null ? -1 : tracking.RedirectId);
        writer.WriteBulkString("prefixes"u8);
        var prefixes = tracking?.Prefixes ?? [];
        writer.WriteArrayHeader(prefixes.Count);
        foreach (var prefix in prefixes)
        {
            writer.WriteBulkString(prefix);
        }
    }

    /// <summary>CLIENT GETREDIR: the client id invalidations go to, 0 for none, -1 when tracking is off.</summary>
    public static void GetRedirect(ClientSession session, RespRequest request)
    {
        if (Arguments.CheckArity(session.Context, request, 2, "client|getredir"))
        {
            session.Writer.WriteInteger(session.Tracking is { Enabled: true } tracking ? tracking.RedirectId : -1);
        }
    }

    /// <summary>
    /// FLUSHALL: every tracking connection of every silo is told every key changed, as Redis sends a null
    /// invalidation. A silo that does not answer in time still gets each flushed shard's own invalidations.
    /// </summary>
    public static async Task FlushingAsync(Hosting.SiloRuntime silo)
    {
        silo.TrackedKeys.Invalidated([KeyInvalidation.Everything]);
        if (silo.Tracking is not { } tracking || silo.PubSubPeers is not { } peers)
        {
            return;
        }

        var others = await peers.OthersAsync().ConfigureAwait(false);
        await Task.WhenAll(others.Select(async other =>
        {
            try
            {
                await tracking.TellEverythingAsync(other).WaitAsync(PubSub.PubSubPeers.PeerTimeout).ConfigureAwait(false);
            }
            catch (Exception exception) when (exception is not OutOfMemoryException)
            {
                // Not lost: each flushed shard also tells every silo that read from it, through its own link.
            }
        })).ConfigureAwait(false);
    }

    /// <summary>
    /// Before a command on keys runs for a tracking connection. A read-only one: its keys are remembered here, and the
    /// shards are to remember this silo read them; returns true, so <see cref="AfterTrackedRead"/> is called once it ran.
    /// A write under NOLOOP: this connection forgets its keys first. Anything else: nothing to do.
    /// </summary>
    public static bool BeforeKeyCommand(ClientSession session, KeyCommand command, RespRequest request)
    {
        if (session.Tracking is not { Enabled: true } tracking)
        {
            return false;
        }

        if (!command.ReadsOnly)
        {
            // NOLOOP: what this connection changes itself is not sent back to it; it forgets those keys first.
            if (tracking.NoLoop)
            {
                session.Silo.TrackedKeys.Forget(session, KeysOf(command, request));
            }

            return false;
        }

        if (!tracking.Tracks)
        {
            return false;
        }

        session.Silo.TrackedKeys.Reading(session, KeysOf(command, request));
        session.Context.TrackReadsFor = session.Silo.Self;
        return true;
    }

    private static byte[][] KeysOf(KeyCommand command, RespRequest request)
    {
        var last = KeyArguments.Last(command, request.Count);
        var step = KeyArguments.Step(command);
        var keys = new List<byte[]>();
        for (var argument = command.FirstKey; argument <= last; argument += step)
        {
            keys.Add(request[argument].ToArray());
        }

        return [.. keys];
    }

    /// <summary>After the command <see cref="BeforeKeyCommand"/> prepared ran here, or was handed on to another silo.</summary>
    public static void AfterTrackedRead(ClientSession session)
    {
        session.Context.TrackReadsFor = null;
        if (!session.HasDeferred)
        {
            session.Silo.TrackedKeys.Read(session);
        }
    }
}
