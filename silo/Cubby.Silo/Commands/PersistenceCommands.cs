using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Silo.Routing;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>SAVE, BGSAVE and LASTSAVE: every shard of the cluster written whole to its silo's persistence folder.</summary>
internal static class PersistenceCommands
{
    /// <summary>SAVE: every shard written before the reply (<see cref="ClusterKeyspace.SaveAsync"/>).</summary>
    public static void Save(ClientSession session, RespRequest request) => session.Defer(ClusterKeyspace.SaveAsync(session));

    /// <summary>
    /// BGSAVE [SCHEDULE]: the same, after the reply. One runs at a time, as in Redis: another is refused, or with
    /// SCHEDULE runs once this one ends. A silo without a folder refuses at once, as it could write nothing of its own.
    /// </summary>
    public static void BackgroundSave(ClientSession session, RespRequest request)
    {
        var schedule = request.Count == 2 && AsciiIgnoreCaseComparer.IsKeyword(request[1], "SCHEDULE");
        if (request.Count > 2 || (request.Count == 2 && !schedule))
        {
            session.Writer.WriteError(RedisErrors.Syntax);
            return;
        }

        var silo = session.Silo;
        if (silo.Figures.Persistence is null)
        {
            session.Writer.WriteError("ERR this silo keeps no Cubby:Persistence:Directory, so there is nowhere to save to");
            return;
        }

        if (!silo.Saves.TryBeginBackground())
        {
            if (schedule)
            {
                silo.Saves.Schedule();
                session.Writer.WriteSimpleString("Background saving scheduled");
            }
            else
            {
                session.Writer.WriteError("ERR Background save already in progress");
            }

            return;
        }

        // A shard that could not be written is logged by its silo; INFO persistence says how the last save ended.
        session.Writer.WriteSimpleString("Background saving started");
        _ = Task.Run(async () =>
        {
            do
            {
                await ClusterKeyspace.SaveEveryShardAsync(silo).ConfigureAwait(false);
            }
            while (silo.Saves.EndBackground());
        });
    }

    /// <summary>LASTSAVE: when the last save this silo ran wrote every shard (Unix seconds), or when the silo started.</summary>
    public static void LastSave(ClientSession session, RespRequest request) => session.Writer.WriteInteger(session.Silo.Saves.LastSave);
}
