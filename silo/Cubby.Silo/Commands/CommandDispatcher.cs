using System.Text;
using Cubby.Resp;
using Cubby.Silo.Cluster.Routing;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>Finds a request's command, checks authentication and arity, and runs it.</summary>
internal static class CommandDispatcher
{
    public static void Execute(ClientSession session, RespRequest request)
    {
        var command = session.Silo.Commands.Find(request[0]);
        if (command is null)
        {
            session.Writer.WriteError(UnknownCommand(request));
            return;
        }

        if (!session.IsAuthenticated && !command.AllowedBeforeAuth)
        {
            session.Writer.WriteError(ErrorText.NoAuth);
            return;
        }

        if (!command.AcceptsArgumentCount(request.Count))
        {
            session.Writer.WriteError(ErrorText.WrongArity(command.Name));
            return;
        }

        if (command.PeersOnly && !session.IsClusterPeer)
        {
            session.Writer.WriteError(ErrorText.PeersOnly);
            return;
        }

        session.LastCommand = command.Name;
        if (command.FirstKey > 0)
        {
            KeyRouter.Execute(session, command, request);
        }
        else
        {
            command.Handler(session, request);
        }
    }

    private static string UnknownCommand(RespRequest request)
    {
        // As Redis: every argument, quoted, until 128 bytes of them have been echoed; the last one cut to fit.
        const int Budget = 128;
        var text = new StringBuilder("ERR unknown command '").Append(ErrorText.Printable(request[0])).Append("', with args beginning with: ");
        var used = 0;
        for (var i = 1; i < request.Count && used < Budget; i++)
        {
            var argument = request[i];
            var shown = argument[..Math.Min(argument.Length, Budget - used)];
            text.Append('\'').Append(ErrorText.Printable(shown)).Append("' ");
            used += shown.Length + 3;
        }

        return text.ToString();
    }
}
