using Cubby.Client.DependencyInjection;
using Cubby.Client.MessagePack;
using Cubby.Client.Serialization;
using Nerdbank.MessagePack;
using PolyType;

#pragma warning disable IDE0130 // Extension methods live in the DI namespace, where callers already look for them.
namespace Microsoft.Extensions.DependencyInjection;
#pragma warning restore IDE0130

/// <summary>Makes a Cubby client store objects as MessagePack.</summary>
public static class MessagePackClientBuilderExtensions
{
    /// <summary>
    /// Replaces the client's System.Text.Json serializer with <see cref="MessagePackCubbySerializer"/> for
    /// <c>PutObjectAsync</c>, <c>GetObjectAsync</c> and <c>GetOrCreateAsync</c>.
    /// </summary>
    /// <param name="builder">What <c>AddCubbyClient</c> returned.</param>
    /// <param name="shapes">The shapes of the types the app caches (a witness class's <c>GeneratedTypeShapeProvider</c>).</param>
    /// <param name="serializer">Nerdbank.MessagePack's settings; its defaults when null.</param>
    /// <returns>The builder.</returns>
    public static ICubbyClientBuilder UseMessagePack(this ICubbyClientBuilder builder, ITypeShapeProvider shapes, MessagePackSerializer? serializer = null)
    {
        ArgumentNullException.ThrowIfNull(builder);
        ArgumentNullException.ThrowIfNull(shapes);
        builder.Services.AddSingleton<ICubbySerializer>(new MessagePackCubbySerializer(shapes, serializer));
        return builder;
    }
}
