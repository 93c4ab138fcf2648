using Cubby.Resp;
using Cubby.Silo.Protocol;

namespace Cubby.Silo.Commands;

/// <summary>Runs one command: reads its arguments from the request and writes exactly one reply.</summary>
internal delegate void CommandHandler(ClientSession session, RespRequest request);
