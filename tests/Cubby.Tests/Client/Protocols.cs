using Cubby.Resp;

namespace Cubby.Tests.Client;

/// <summary>Both protocols the client can speak, for theories.</summary>
public static class Protocols
{
    public static TheoryData<RespVersion> Both => new() { RespVersion.Resp2, RespVersion.Resp3 };
}
