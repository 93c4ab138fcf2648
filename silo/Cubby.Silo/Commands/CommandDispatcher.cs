using System.Diagnostics;
using System.Text;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Sharding;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>Finds a request's command, checks authentication and arity, and runs it.</summary>
internal static class CommandDispatcher
{
    /// <summary>Runs the request and counts it (result and latency) in the session's tally.</summary>
    public static void Execute(ClientSession session, RespRequest request) => Execute(session, request, Stopwatch.GetTimestamp());

    /// <summary>
    /// Runs the request, counting its latency from <paramref name="started"/>, and returns when it finished: a batch
    /// starts each command's clock where the previous one stopped, one clock read per command instead of two.
    /// </summary>
    public static long Execute(ClientSession session, RespRequest request, long started)
    {
        var errorsBefore = session.Writer.ErrorCount;
        var counted = Run(session, request);
        session.Tracking?.CommandRan();
        if (session.HasDeferred)
        {
            // Its reply is written when the deferred part finishes; the connection counts it then.
            session.TrackDeferred(counted, started, errorsBefore);
            return started;
        }

        var finished = Stopwatch.GetTimestamp();
        session.RecordCommand(counted, session.Writer.ErrorCount != errorsBefore, finished - started);
        return finished;
    }

    /// <summary>Runs the request; returns the index its metrics are kept under.</summary>
    private static int Run(ClientSession session, RespRequest request)
    {
        var command = session.Silo.Commands.Find(request[0]);
        if (session.Transaction is { } transaction && command is not { ControlsTransaction: true })
        {
            Transactions.TransactionCommands.Queue(session, transaction, command, request);
            return command?.Index ?? session.Silo.Metrics.UnknownIndex;
        }

        if (command is null)
        {
            session.Writer.WriteError(UnknownCommand(request));
            return session.Silo.Metrics.UnknownIndex;
        }

        if (!session.IsAuthenticated && !command.AllowedBeforeAuth)
        {
            session.Writer.WriteError(SiloErrors.NoAuth);
        }
        else if (!command.AcceptsArgumentCount(request.Count))
        {
            session.Writer.WriteError(RedisErrors.WrongArity(command.Name));
        }
        else if (session.InSubscribedContext && !command.AllowedWhileSubscribed)
        {
            var name = command.HasSubcommands ? $"{command.Name}|{RedisErrors.Printable(request[1]).ToLowerInvariant()}" : command.Name;
            session.Writer.WriteError(SiloErrors.NotInSubscribedContext(name));
        }
        else
        {
            session.LastCommand = command.Name;
            // A command whose key is optional (OBJECT HELP) runs without routing when it has none.
            if (command.Keyed is { } keyed && request.Count > keyed.FirstKey)
            {
                var tracked = Tracking.TrackingCommands.BeforeKeyCommand(session, keyed, request);
                try
                {
                    KeyRouter.Execute(session, command, keyed, request);
                }
                catch (WrongTypeException)
                {
                    // Thrown by the shard before the handler wrote anything: the reply is Redis's error alone.
                    session.Writer.WriteError(WrongTypeException.RedisError);
                }
                finally
                {
                    if (tracked)
                    {
                        Tracking.TrackingCommands.AfterTrackedRead(session);
                    }
                }
            }
            else
            {
                command.Handler(session, request);
            }
        }

        return command.Index;
    }

    public static string UnknownCommand(RespRequest request)
    {
        // As Redis: every argument, quoted, until 128 bytes of them have been echoed; the last one cut to fit.
        const int Budget = 128;
        var text = new StringBuilder("ERR unknown command '").Append(RedisErrors.Printable(request[0])).Append("', with args beginning with: ");
        var used = 0;
        for (var i = 1; i < request.Count && used < Budget; i++)
        {
            var argument = request[i];
            var shown = argument[..Math.Min(argument.Length, Budget - used)];
            text.Append('\'').Append(RedisErrors.Printable(shown)).Append("' ");
            used += shown.Length + 3;
        }

        return text.ToString();
    }
}
