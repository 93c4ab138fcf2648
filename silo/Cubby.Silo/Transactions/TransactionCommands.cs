using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Commands;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Transactions;

/// <summary>MULTI, EXEC and DISCARD, with Redis's replies and errors; queueing itself is in <see cref="CommandDispatcher"/>, WATCH in <see cref="WatchCommands"/>.</summary>
internal static class TransactionCommands
{
    public static void Multi(ClientSession session, RespRequest request)
    {
        if (session.Transaction is not null)
        {
            session.Writer.WriteError(SiloErrors.MultiNested);
            return;
        }

        session.Transaction = new QueuedTransaction();
        session.Writer.WriteOk();
    }

    public static void Exec(ClientSession session, RespRequest request)
    {
        if (session.Transaction is not { } transaction)
        {
            session.Writer.WriteError(SiloErrors.ExecWithoutMulti);
            return;
        }

        session.Transaction = null;
        if (transaction.Aborted)
        {
            transaction.Dispose();
            WatchCommands.Release(session);
            session.Writer.WriteError(SiloErrors.ExecAbort);
            return;
        }

        // EXEC ends the watches whatever happens; the runner checks them while it holds their shards.
        var watched = session.Watches;
        session.Watches = null;
        session.Defer(TransactionRunner.ExecAsync(session, transaction, watched));
    }

    public static void Discard(ClientSession session, RespRequest request)
    {
        if (session.Transaction is not { } transaction)
        {
            session.Writer.WriteError(SiloErrors.DiscardWithoutMulti);
            return;
        }

        session.Transaction = null;
        transaction.Dispose();
        WatchCommands.Release(session);
        session.Writer.WriteOk();
    }

    /// <summary>
    /// Queues a command sent between MULTI and EXEC and answers +QUEUED; or answers the error Redis gives while
    /// queueing and marks the transaction aborted, so EXEC runs none of it.
    /// </summary>
    public static void Queue(ClientSession session, QueuedTransaction transaction, CommandDefinition? command, RespRequest request)
    {
        var error = command is null ? CommandDispatcher.UnknownCommand(request)
            : !session.IsAuthenticated && !command.AllowedBeforeAuth ? SiloErrors.NoAuth
            : !command.AcceptsArgumentCount(request.Count) ? RedisErrors.WrongArity(command.Name)
            : null;
        if (error is null)
        {
            transaction.Add(command!, request);
            if (transaction.QueuedBytes <= session.Silo.Options.MaxRequestBytes)
            {
                session.Writer.WriteSimpleString("QUEUED");
                return;
            }

            error = SiloErrors.TransactionTooLarge(session.Silo.Options.MaxRequestBytes);
        }

        transaction.Abort();
        session.Writer.WriteError(error);
    }
}
