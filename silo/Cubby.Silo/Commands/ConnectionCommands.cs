using System.Security.Cryptography;
using System.Text;
using Cubby.Grains.Commands;
using Cubby.Resp;
using Cubby.Silo.Protocol;
using Cubby.Text;

namespace Cubby.Silo.Commands;

/// <summary>PING, ECHO, HELLO, AUTH, SELECT, QUIT and CLIENT.</summary>
internal static class ConnectionCommands
{
    /// <summary>The Redis version whose commands and replies Cubby follows; clients read it from HELLO and INFO.</summary>
    public const string CompatibleRedisVersion = "7.2.0";

    public static void Ping(ClientSession session, RespRequest request)
    {
        if (request.Count > 2)
        {
            session.Writer.WriteError(RedisErrors.WrongArity("ping"));
        }
        else if (session.InSubscribedContext)
        {
            // As Redis answers PING in RESP2's subscribed context: a pub/sub-shaped reply.
            session.Writer.WriteArrayHeader(2);
            session.Writer.WriteBulkString("pong"u8);
            session.Writer.WriteBulkString(request.Count == 2 ? request[1] : []);
        }
        else if (request.Count == 2)
        {
            session.Writer.WriteBulkString(request[1]);
        }
        else
        {
            session.Writer.WriteSimpleString("PONG"u8);
        }
    }

    public static void Echo(ClientSession session, RespRequest request) => session.Writer.WriteBulkString(request[1]);

    public static void Quit(ClientSession session, RespRequest request)
    {
        session.Writer.WriteOk();
        session.CloseRequested = true;
    }

    public static void Select(ClientSession session, RespRequest request)
    {
        if (!Arguments.TryInt64(session.Context, request[1], out var index))
        {
            return;
        }

        if (index == 0)
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError(RedisErrors.DbIndexOutOfRange);
        }
    }

    public static void Auth(ClientSession session, RespRequest request)
    {
        if (request.Count > 3)
        {
            session.Writer.WriteError(RedisErrors.Syntax);
            return;
        }

        // As in Redis, only the one-argument form complains that no password is set; "AUTH default pw" succeeds.
        if (request.Count == 2 && session.Silo.Options.Password is null)
        {
            session.Writer.WriteError(SiloErrors.NoPasswordConfigured);
            return;
        }

        if (TryAuthenticate(session, request.Count == 3 ? request[1] : "default"u8, request[request.Count - 1]))
        {
            session.Writer.WriteOk();
        }
    }

    /// <summary>HELLO [protover [AUTH username password] [SETNAME clientname]].</summary>
    public static void Hello(ClientSession session, RespRequest request)
    {
        var version = session.Writer.Version;
        if (request.Count > 1)
        {
            if (!Text.RedisNumber.TryParseInt64(request[1], out var requested))
            {
                session.Writer.WriteError("ERR Protocol version is not an integer or out of range");
                return;
            }

            if (requested is not (2 or 3))
            {
                session.Writer.WriteError("NOPROTO unsupported protocol version");
                return;
            }

            version = (RespVersion)requested;
        }

        string? name = null;
        for (var i = 2; i < request.Count; i++)
        {
            if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "AUTH") && i + 2 < request.Count)
            {
                if (!TryAuthenticate(session, request[i + 1], request[i + 2]))
                {
                    return;
                }

                i += 2;
            }
            else if (AsciiIgnoreCaseComparer.IsKeyword(request[i], "SETNAME") && i + 1 < request.Count)
            {
                if (!TryReadClientName(session, request[++i], out name))
                {
                    return;
                }
            }
            else
            {
                session.Writer.WriteError($"ERR Syntax error in HELLO option '{RedisErrors.Printable(request[i])}'");
                return;
            }
        }

        if (!session.IsAuthenticated)
        {
            session.Writer.WriteError(SiloErrors.NoAuth);
            return;
        }

        session.Name = name ?? session.Name;
        session.Writer.Version = version;
        var writer = session.Writer;
        writer.WriteMapHeader(7);
        writer.WriteBulkString("server");
        writer.WriteBulkString("cubby");
        writer.WriteBulkString("version");
        writer.WriteBulkString(CompatibleRedisVersion);
        writer.WriteBulkString("proto");
        writer.WriteInteger((int)version);
        writer.WriteBulkString("id");
        writer.WriteInteger(session.Id);
        writer.WriteBulkString("mode");
        writer.WriteBulkString("standalone");
        writer.WriteBulkString("role");
        writer.WriteBulkString("master");
        writer.WriteBulkString("modules");
        writer.WriteArrayHeader(0);
    }

    public static void Client(ClientSession session, RespRequest request)
    {
        var subcommand = request[1];
        var writer = session.Writer;
        if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "ID"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "client|id"))
            {
                writer.WriteInteger(session.Id);
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "GETNAME"))
        {
            if (!Arguments.CheckArity(session.Context, request, 2, "client|getname"))
            {
                return;
            }

            if (session.Name is null)
            {
                writer.WriteNull();
            }
            else
            {
                writer.WriteBulkString(session.Name);
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "SETNAME"))
        {
            if (Arguments.CheckArity(session.Context, request, 3, "client|setname") && TryReadClientName(session, request[2], out var name))
            {
                session.Name = name;
                writer.WriteOk();
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "SETINFO"))
        {
            if (Arguments.CheckArity(session.Context, request, 4, "client|setinfo"))
            {
                SetInfo(session, request[2], request[3]);
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "INFO"))
        {
            if (Arguments.CheckArity(session.Context, request, 2, "client|info"))
            {
                writer.WriteVerbatimString("txt"u8, Encoding.UTF8.GetBytes(Describe(session) + "\n"));
            }
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "TRACKING"))
        {
            Tracking.TrackingCommands.Tracking(session, request);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "CACHING"))
        {
            Tracking.TrackingCommands.Caching(session, request);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "TRACKINGINFO"))
        {
            Tracking.TrackingCommands.TrackingInfo(session, request);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "GETREDIR"))
        {
            Tracking.TrackingCommands.GetRedirect(session, request);
        }
        else if (AsciiIgnoreCaseComparer.IsKeyword(subcommand, "LIST"))
        {
            var list = new StringBuilder();
            foreach (var client in session.Silo.Clients.All)
            {
                list.Append(Describe(client)).Append('\n');
            }

            writer.WriteVerbatimString("txt"u8, Encoding.UTF8.GetBytes(list.ToString()));
        }
        else
        {
            writer.WriteError(RedisErrors.UnknownSubcommand(subcommand, "CLIENT"));
        }
    }

    /// <summary>CLIENT SETINFO LIB-NAME|LIB-VER value: shown by CLIENT INFO and CLIENT LIST, as in Redis 7.2.</summary>
    private static void SetInfo(ClientSession session, ReadOnlySpan<byte> attribute, ReadOnlySpan<byte> value)
    {
        var isName = AsciiIgnoreCaseComparer.IsKeyword(attribute, "LIB-NAME");
        if (!isName && !AsciiIgnoreCaseComparer.IsKeyword(attribute, "LIB-VER"))
        {
            session.Writer.WriteError($"ERR Unrecognized option '{RedisErrors.Printable(attribute)}'");
            return;
        }

        if (!IsPrintableWord(value))
        {
            session.Writer.WriteError($"ERR {RedisErrors.Printable(attribute)} cannot contain spaces, newlines or special characters.");
            return;
        }

        var text = value.IsEmpty ? null : Encoding.ASCII.GetString(value);
        if (isName)
        {
            session.LibraryName = text;
        }
        else
        {
            session.LibraryVersion = text;
        }

        session.Writer.WriteOk();
    }

    private static string Describe(ClientSession client)
    {
        var age = (long)(client.Silo.Time.GetUtcNow() - client.ConnectedAt).TotalSeconds;
        return $"id={client.Id} addr={client.RemoteEndPoint} name={client.Name} age={age} db=0 sub={client.Subscriber?.Channels.Count ?? 0} psub={client.Subscriber?.Patterns.Count ?? 0} cmd={client.LastCommand ?? "NULL"} resp={(int)client.Writer.Version} lib-name={client.LibraryName} lib-ver={client.LibraryVersion}";
    }

    private static bool TryAuthenticate(ClientSession session, ReadOnlySpan<byte> user, ReadOnlySpan<byte> password)
    {
        // Without a password the default user is Redis's "nopass": any password authenticates it.
        var configured = session.Silo.Options.Password;
        var valid = AsciiIgnoreCaseComparer.IsKeyword(user, "default") & (configured is null || SecretEquals(password, configured));
        if (!valid)
        {
            session.Writer.WriteError(SiloErrors.WrongPass);
            return false;
        }

        session.IsAuthenticated = true;
        return true;
    }

    // Hashing first makes the comparison take the same time whatever the lengths.
    private static bool SecretEquals(ReadOnlySpan<byte> given, string configured) =>
        CryptographicOperations.FixedTimeEquals(SHA256.HashData(given), SHA256.HashData(Encoding.UTF8.GetBytes(configured)));

    private static bool TryReadClientName(ClientSession session, ReadOnlySpan<byte> name, out string? value)
    {
        value = null;
        if (!IsPrintableWord(name))
        {
            session.Writer.WriteError(SiloErrors.ClientNameInvalid);
            return false;
        }

        value = name.IsEmpty ? null : Encoding.ASCII.GetString(name);
        return true;
    }

    /// <summary>Printable ASCII without spaces, so CLIENT LIST stays one field per space-separated word.</summary>
    private static bool IsPrintableWord(ReadOnlySpan<byte> text)
    {
        foreach (var c in text)
        {
            if (c is < (byte)'!' or > (byte)'~')
            {
                return false;
            }
        }

        return true;
    }
}
