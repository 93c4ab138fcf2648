using System.Security.Cryptography;
using System.Text;
using Cubby.Resp;
using Cubby.Silo.Protocol;

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
            session.Writer.WriteError(ErrorText.WrongArity("ping"));
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
        if (!Arguments.TryInt64(session, request[1], out var index))
        {
            return;
        }

        if (index == 0)
        {
            session.Writer.WriteOk();
        }
        else
        {
            session.Writer.WriteError(ErrorText.DbIndexOutOfRange);
        }
    }

    public static void Auth(ClientSession session, RespRequest request)
    {
        if (request.Count > 3)
        {
            session.Writer.WriteError(ErrorText.Syntax);
            return;
        }

        // As in Redis, only the one-argument form complains that no password is set; "AUTH default pw" succeeds.
        if (request.Count == 2 && session.Silo.Options.Password is null)
        {
            session.Writer.WriteError(ErrorText.NoPasswordConfigured);
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
            if (Arguments.Is(request[i], "AUTH") && i + 2 < request.Count)
            {
                if (!TryAuthenticate(session, request[i + 1], request[i + 2]))
                {
                    return;
                }

                i += 2;
            }
            else if (Arguments.Is(request[i], "SETNAME") && i + 1 < request.Count)
            {
                if (!TryReadClientName(session, request[++i], out name))
                {
                    return;
                }
            }
            else
            {
                session.Writer.WriteError($"ERR Syntax error in HELLO option '{ErrorText.Printable(request[i])}'");
                return;
            }
        }

        if (!session.IsAuthenticated)
        {
            session.Writer.WriteError(ErrorText.NoAuth);
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
        if (Arguments.Is(subcommand, "ID") && request.Count == 2)
        {
            writer.WriteInteger(session.Id);
        }
        else if (Arguments.Is(subcommand, "GETNAME") && request.Count == 2)
        {
            if (session.Name is null)
            {
                writer.WriteNull();
            }
            else
            {
                writer.WriteBulkString(session.Name);
            }
        }
        else if (Arguments.Is(subcommand, "SETNAME") && request.Count == 3)
        {
            if (TryReadClientName(session, request[2], out var name))
            {
                session.Name = name;
                writer.WriteOk();
            }
        }
        else if (Arguments.Is(subcommand, "SETINFO") && request.Count == 4)
        {
            writer.WriteOk();
        }
        else if (Arguments.Is(subcommand, "INFO") && request.Count == 2)
        {
            writer.WriteBulkString(Describe(session) + "\n");
        }
        else if (Arguments.Is(subcommand, "LIST"))
        {
            var list = new StringBuilder();
            foreach (var client in session.Silo.Clients.All)
            {
                list.Append(Describe(client)).Append('\n');
            }

            writer.WriteBulkString(list.ToString());
        }
        else
        {
            writer.WriteError(ErrorText.UnknownSubcommand(subcommand, "CLIENT"));
        }
    }

    private static string Describe(ClientSession client)
    {
        var age = (long)(client.Silo.Time.GetUtcNow() - client.ConnectedAt).TotalSeconds;
        return $"id={client.Id} addr={client.RemoteEndPoint} name={client.Name} age={age} db=0 resp={(int)client.Writer.Version} cmd={client.LastCommand ?? "NULL"}";
    }

    private static bool TryAuthenticate(ClientSession session, ReadOnlySpan<byte> user, ReadOnlySpan<byte> password)
    {
        // Without a password the default user is Redis's "nopass": any password authenticates it.
        var configured = session.Silo.Options.Password;
        var valid = Arguments.Is(user, "default")
            & (configured is null || CryptographicOperations.FixedTimeEquals(SHA256.HashData(password), SHA256.HashData(Encoding.UTF8.GetBytes(configured))));
        if (!valid)
        {
            session.Writer.WriteError(ErrorText.WrongPass);
            return false;
        }

        session.IsAuthenticated = true;
        return true;
    }

    private static bool TryReadClientName(ClientSession session, ReadOnlySpan<byte> name, out string? value)
    {
        value = null;
        foreach (var c in name)
        {
            if (c is < (byte)'!' or > (byte)'~')
            {
                session.Writer.WriteError(ErrorText.ClientNameInvalid);
                return false;
            }
        }

        value = name.IsEmpty ? null : Encoding.ASCII.GetString(name);
        return true;
    }
}
