using System.Buffers;
using System.Text.Json;
using System.Text.Json.Serialization;
using Cubby.Client;
using Cubby.Client.MessagePack;
using Cubby.Client.Serialization;
using Cubby.Tests.Infrastructure;
using Microsoft.Extensions.DependencyInjection;
using PolyType;

namespace Cubby.Tests.Client;

/// <summary>
/// The client's two serializers: System.Text.Json (the default) and MessagePack (Nerdbank.MessagePack with
/// source-generated shapes) round-trip the same object graph, refuse a type they were not given with an error naming
/// it, and MessagePack chosen with <c>UseMessagePack</c> is what a client stores through a silo.
/// </summary>
public sealed partial class SerializerTests
{
    private static readonly Order Sample = new(
        42,
        new Customer("Ada", "ada@example.com", Tier.Gold),
        [new OrderLine("cubby-mug", 2, 9.5m), new OrderLine("cubby-tee", 1, 19.99m)],
        new Dictionary<string, string> { ["gift"] = "yes", ["note"] = "æøå ✓" },
        new DateTimeOffset(2026, 11, 24, 10, 30, 0, TimeSpan.FromHours(1)),
        Coupon: null);

    public static TheoryData<string> Serializers => ["json", "msgpack"];

    [Theory]
    [MemberData(nameof(Serializers))]
    public void Each_serializer_round_trips_the_same_object_graph(string name)
    {
        var serializer = Create(name);
        var buffer = new ArrayBufferWriter<byte>();
        serializer.Serialize(Sample, buffer);

        AssertSameOrder(Sample, serializer.Deserialize<Order>(buffer.WrittenMemory));
    }

    [Fact]
    public void MessagePack_is_smaller_than_json_for_the_same_graph()
    {
        var json = new ArrayBufferWriter<byte>();
        var messagePack = new ArrayBufferWriter<byte>();
        Create("json").Serialize(Sample, json);
        Create("msgpack").Serialize(Sample, messagePack);

        Assert.True(messagePack.WrittenCount < json.WrittenCount, $"MessagePack {messagePack.WrittenCount} B, JSON {json.WrittenCount} B");
    }

    [Theory]
    [MemberData(nameof(Serializers))]
    public void A_type_the_serializer_was_not_given_is_refused_by_name(string name)
    {
        var serializer = Create(name);

        var refused = Assert.ThrowsAny<NotSupportedException>(() => serializer.Serialize(new Unlisted(1), new ArrayBufferWriter<byte>()));
        Assert.Contains(nameof(Unlisted), refused.Message, StringComparison.Ordinal);
    }

    [Fact]
    public async Task A_client_with_UseMessagePack_stores_objects_as_MessagePack_through_a_silo()
    {
        await using var silo = await TestSilo.StartAsync();
        var services = new ServiceCollection();
        services.AddCubbyClient(options => options.Endpoints.Add($"127.0.0.1:{silo.GatewayEndPoint.Port}")).UseMessagePack(TestShapes.GeneratedTypeShapeProvider);
        await using var provider = services.BuildServiceProvider();
        var client = provider.GetRequiredService<ICubbyClient>();

        Assert.Equal(WriteOutcome.Created, await client.PutObjectAsync("order:42", Sample));
        AssertSameOrder(Sample, await client.GetObjectAsync<Order>("order:42"));
        var stored = await client.GetAsync("order:42");
        AssertSameOrder(Sample, new MessagePackCubbySerializer(TestShapes.GeneratedTypeShapeProvider).Deserialize<Order>(stored));

        var created = 0;
        var made = await client.GetOrCreateAsync("order:7", _ => { created++; return ValueTask.FromResult(Sample with { Id = 7 }); });
        var again = await client.GetOrCreateAsync("order:7", _ => { created++; return ValueTask.FromResult(Sample); });
        Assert.Equal(1, created);
        Assert.Equal(7, again.Id);
        AssertSameOrder(made, again);
    }

    private static ICubbySerializer Create(string name) => name switch
    {
        "json" => new SystemTextJsonCubbySerializer(new JsonSerializerOptions(JsonSerializerDefaults.Web) { TypeInfoResolver = TestJson.Default }),
        _ => new MessagePackCubbySerializer(TestShapes.GeneratedTypeShapeProvider),
    };

    private static void AssertSameOrder(Order expected, Order? actual)
    {
        Assert.NotNull(actual);
        Assert.Equal(expected.Id, actual.Id);
        Assert.Equal(expected.Customer, actual.Customer);
        Assert.Equal(expected.Lines, actual.Lines);
        Assert.Equal(expected.Tags, actual.Tags);
        Assert.Equal(expected.PlacedAt, actual.PlacedAt);
        Assert.Equal(expected.PlacedAt.Offset, actual.PlacedAt.Offset);
        Assert.Null(actual.Coupon);
    }

    public enum Tier
    {
        Standard,
        Gold,
    }

    public sealed record Customer(string Name, string Email, Tier Tier);

    public sealed record OrderLine(string Sku, int Quantity, decimal Price);

    public sealed record Order(int Id, Customer Customer, List<OrderLine> Lines, Dictionary<string, string> Tags, DateTimeOffset PlacedAt, string? Coupon);

    public sealed record Unlisted(int Value);

    [GenerateShapeFor<Order>]
    internal sealed partial class TestShapes;

    [JsonSerializable(typeof(Order))]
    internal sealed partial class TestJson : JsonSerializerContext;
}
