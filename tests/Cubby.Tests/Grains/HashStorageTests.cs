using System.Buffers;
using System.Text;
using Cubby.Grains;
using Cubby.Grains.Hashes;
using Cubby.Grains.Storage;
using Cubby.Sharding;

namespace Cubby.Tests.Grains;

/// <summary>Hashes in a shard: their encoding, their kind, and WRONGTYPE between them and strings.</summary>
public sealed class HashStorageTests
{
    [Fact]
    public void The_encoding_keeps_fields_and_values_in_order_including_empty_binary_and_long_ones()
    {
        var longValue = new byte[70_000];
        Random.Shared.NextBytes(longValue);
        var buffer = new ArrayBufferWriter<byte>();
        var builder = new HashBuilder(buffer);
        builder.Add("a"u8, "1"u8);
        builder.Add(""u8, ""u8);
        builder.Add([0, 255, 13, 10], longValue);

        var fields = new HashFields(builder.Finish());

        Assert.Equal(3, fields.Count);
        var seen = new List<(string Field, string Value)>();
        foreach (var entry in fields)
        {
            seen.Add((Convert.ToHexString(entry.Field), Convert.ToHexString(entry.Value)));
        }

        Assert.Equal([("61", "31"), ("", ""), ("00FF0D0A", Convert.ToHexString(longValue))], seen);
        Assert.True(fields.TryGet([0, 255, 13, 10], out var found) && found.SequenceEqual(longValue));
        Assert.False(fields.Contains("b"u8));
    }

    [Fact]
    public void A_builder_without_fields_finishes_empty_which_means_no_hash()
    {
        var builder = new HashBuilder(new ArrayBufferWriter<byte>());

        Assert.True(builder.Finish().IsEmpty);
        Assert.Equal(0, new HashFields(default).Count);
    }

    [Fact]
    public void An_edited_hash_is_a_hash_counted_in_the_budget_and_removed_with_its_last_field()
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("h");
        var scratch = new ArrayBufferWriter<byte>();

        var add = new AddField("f", "value");
        Assert.Equal(UpdateStatus.Ok, host.Grain.EditHash(key, scratch, ref add));

        Assert.Equal(EntryKind.Hash, host.Grain.KindOf(key));
        Assert.Equal(host.Grain.UsedBytes, host.Budget.Used);
        Assert.True(host.Budget.Used > 0);

        var clear = new ClearFields();
        Assert.Equal(UpdateStatus.Ok, host.Grain.EditHash(key, scratch, ref clear));
        Assert.Null(host.Grain.KindOf(key));
        Assert.Equal(0, host.Budget.Used);
    }

    [Fact]
    public void String_commands_on_a_hash_and_hash_commands_on_a_string_are_wrongtype_and_change_nothing()
    {
        using var host = new SingleGrain();
        var scratch = new ArrayBufferWriter<byte>();
        var add = new AddField("f", "1");
        host.Grain.EditHash(SingleGrain.Bytes("hash"), scratch, ref add);
        host.Set("string", "1");
        var reader = new CapturingReader();

        Assert.Throws<WrongTypeException>(() => host.Get("hash"));
        Assert.Throws<WrongTypeException>(() => host.Grain.IncrementBy(SingleGrain.Bytes("hash"), 1, out _));
        Assert.Throws<WrongTypeException>(() => host.Grain.Append(SingleGrain.Bytes("hash"), "x"u8, out _));
        Assert.Throws<WrongTypeException>(() => host.Grain.ReadAndRemove(SingleGrain.Bytes("hash"), ref reader));
        Assert.Throws<WrongTypeException>(() =>
        {
            var again = new AddField("g", "2");
            return host.Grain.EditHash(SingleGrain.Bytes("string"), scratch, ref again);
        });
        Assert.Throws<WrongTypeException>(() => host.Grain.ReadHash(SingleGrain.Bytes("string"), ref reader));

        Assert.False(host.Grain.Read(SingleGrain.Bytes("hash"), slide: false, ref reader, otherKindsAreAbsent: true));
        Assert.Equal(EntryKind.Hash, host.Grain.KindOf(SingleGrain.Bytes("hash")));
        Assert.Equal("1", host.Get("string"));
    }

    [Theory]
    [InlineData(false)]
    [InlineData(true)]
    public void Set_replaces_a_hash_with_a_string_keeping_the_ttl_only_when_asked(bool keepTtl)
    {
        using var host = new SingleGrain();
        var key = SingleGrain.Bytes("h");
        var add = new AddField("f", "1");
        host.Grain.EditHash(key, new ArrayBufferWriter<byte>(), ref add);
        Assert.True(host.Grain.Expire(key, host.Now + 60_000, ExpireCondition.Always));

        host.Set("h", "now a string", keepTtl ? ExpirySpec.Keep : ExpirySpec.Never);

        Assert.Equal(EntryKind.String, host.Grain.KindOf(key));
        Assert.Equal("now a string", host.Get("h"));
        Assert.Equal(keepTtl ? 60_000 : -1, host.Ttl("h"));
    }

    private struct AddField(string field, string value) : IHashEdit
    {
        public readonly bool Apply(HashFields current, ref HashBuilder next)
        {
            foreach (var entry in current)
            {
                next.Add(entry.Field, entry.Value);
            }

            next.Add(Encoding.UTF8.GetBytes(field), Encoding.UTF8.GetBytes(value));
            return true;
        }
    }

    private struct ClearFields : IHashEdit
    {
        public readonly bool Apply(HashFields current, ref HashBuilder next) => true;
    }
}
