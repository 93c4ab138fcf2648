using System.Text;
using Cubby.Resp;
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

        session.LastCommand = command.Name;
        command.Handler(session, request);
    }

    private static string UnknownCommand(RespRequest request)
    {
        var text = new StringBuilder("ERR unknown command '").Append(ErrorText.Printable(request[0])).Append("', with args beginning with: ");
        for (var i = 1; i < Math.Min(request.Count, 4); i++)
        {
            text.Append('\'').Append(ErrorText.Printable(request[i])).Append("' ");
        }

        return text.ToString();
    }
}
