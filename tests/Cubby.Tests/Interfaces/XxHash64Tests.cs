using System.Text;
using Cubby.Hashing;

namespace Cubby.Tests.Interfaces;

// Expected values come from the reference implementation (xxhsum -H1 0.8.1 for seed 0, the libxxhash Python binding
// for other seeds), never from Cubby's own code. The pattern is byte i = (i * 37 + 11) mod 256.
public sealed class XxHash64Tests
{
    public static TheoryData<int, ulong> PatternSeedZero { get; } = new()
    {
        { 0, 0xEF46DB3751D8E999UL },
        { 1, 0xF592C0C7639C4CB6UL },
        { 2, 0x78F1AE91E3B05E99UL },
        { 3, 0x22C08528601D4F27UL },
        { 4, 0xFB1E5CF2F1AE4D95UL },
        { 5, 0x9D213ECA1F68F273UL },
        { 6, 0x0F28996D1449561EUL },
        { 7, 0x5613AC510496C04EUL },
        { 8, 0x57CB2B7521F3E21AUL },
        { 9, 0xC3F1D09775257B66UL },
        { 10, 0x920F407F474903FFUL },
        { 11, 0x1BEF4539443A2D5AUL },
        { 12, 0x2F53B00266039E64UL },
        { 13, 0xAED0293A7BB13C7AUL },
        { 14, 0x393648AA0A97D46FUL },
        { 15, 0x90A9714EB00E8D29UL },
        { 16, 0xC6843CEF99721174UL },
        { 17, 0xF72E5E622B272AD6UL },
        { 18, 0xADE42C5775A43C96UL },
        { 19, 0xC3BDAB4626258CEAUL },
        { 20, 0xA62C18328D2D838DUL },
        { 21, 0x2F04FF79D78F8827UL },
        { 22, 0x1E5B0540DEFC3911UL },
        { 23, 0x5E6A1FE05D7C06F8UL },
        { 24, 0xFA2D58B357E1565EUL },
        { 25, 0x8ADEFB8C854B47A5UL },
        { 26, 0x2B085F5F9DA33210UL },
        { 27, 0x87B80516E95CBBBCUL },
        { 28, 0xFF5C77EF1446F7E5UL },
        { 29, 0x8B15B1001A84DBDBUL },
        { 30, 0x6077F1AC1F080751UL },
        { 31, 0xE4A0E629E519A4AEUL },
        { 32, 0xCC6B8AAADA790B2DUL },
        { 33, 0x35EC49850475A832UL },
        { 34, 0xF56A57787FD5FE4EUL },
        { 35, 0x59DE01E65B64555BUL },
        { 36, 0xBEBB6D8C24FB3CFAUL },
        { 37, 0x5F313A6790502101UL },
        { 38, 0x9FFD421BA9CD1BABUL },
        { 39, 0x22984E41B53C1210UL },
        { 40, 0x3B21ED23EEA85C2DUL },
        { 41, 0x25C2B9E2F81A6A9DUL },
        { 42, 0x126F6F74A01C7118UL },
        { 43, 0x03C47EDF3964BB63UL },
        { 44, 0xA9A8F93CE6F588D3UL },
        { 45, 0xFC003D355FA58A61UL },
        { 46, 0x2AF21F2C679A3B30UL },
        { 47, 0x16FDD9CA22942DDAUL },
        { 48, 0xF6C2A2407A06C116UL },
        { 49, 0x1951EDF80E0E88A1UL },
        { 50, 0x8966CF42DC674CB9UL },
        { 51, 0xCA011706CAF89AA3UL },
        { 52, 0xC97263946E120E53UL },
        { 53, 0xF540A55131F40746UL },
        { 54, 0xAB9A21D36F37BCE2UL },
        { 55, 0x66A3EED6214E51FFUL },
        { 56, 0xD44977C91550CF3BUL },
        { 57, 0x52F38F5975796217UL },
        { 58, 0x9996904218108A75UL },
        { 59, 0xD8213A1477E2E240UL },
        { 60, 0x2BAFA54DFA33D5A4UL },
        { 61, 0xCDC4536663934E01UL },
        { 62, 0x57B94E18C6B9173FUL },
        { 63, 0xBF9F0BA3CF95B28AUL },
        { 64, 0x155CCCE4BF32BEFCUL },
        { 65, 0xDA5EE441A595CFB8UL },
        { 66, 0x4B4FC775AB6CF0FBUL },
        { 67, 0x5E65106AFEA9135EUL },
        { 68, 0x775582F16A463143UL },
        { 69, 0x122F5C97B04ED270UL },
        { 70, 0x0D74D36BAFB8D9C7UL },
        { 71, 0x81E0A52B9C0E1651UL },
        { 72, 0x657FC372B173AAE2UL },
        { 73, 0x228F4F53C6795C5FUL },
        { 74, 0xEDC247C39E343F66UL },
        { 75, 0x63CDA54C687966F2UL },
        { 76, 0x53EEB7AA7AE1400FUL },
        { 77, 0x531F82751546D548UL },
        { 78, 0x3327A98236E094B4UL },
        { 79, 0x87A81E99C6449ABDUL },
        { 80, 0x300315C0F7A0F0B0UL },
        { 81, 0x5619F4DB22B243EAUL },
        { 82, 0x65AC6E53A063F323UL },
        { 83, 0x55D8DC41D1396942UL },
        { 84, 0x60702868C96E3A02UL },
        { 85, 0xF430229A7AECF3B7UL },
        { 86, 0x1C8D22476FE60724UL },
        { 87, 0xFEC57D71ABC854A6UL },
        { 88, 0x628311773E689FB4UL },
        { 89, 0x4D6B4B10C1E8B188UL },
        { 90, 0x54D428D7DC5ED523UL },
        { 91, 0xC5CBEF261C0D081AUL },
        { 92, 0x2986290AC486B8DCUL },
        { 93, 0x48244111593DD776UL },
        { 94, 0xC741B3E62620B360UL },
        { 95, 0xEB8FA2EDC9550675UL },
        { 96, 0x7C874B795FA7AB0CUL },
        { 97, 0x665AAE9FF64096D9UL },
        { 98, 0x7D4E4C0F94CE3A1CUL },
        { 99, 0xD5FD0BA4E8ED1AC5UL },
        { 100, 0x4826E367566EA023UL },
    };

    [Fact]
    public void Empty_input_with_seed_zero_matches_the_published_value()
    {
        Assert.Equal(0xEF46DB3751D8E999UL, XxHash64.Hash([]));
        Assert.Equal(0xEF46DB3751D8E999UL, XxHash64.Hash(ReadOnlySpan<byte>.Empty, 0));
    }

    [Theory]
    [InlineData("a", 0xD24EC4F1A98C6E5BUL)]
    [InlineData("abc", 0x44BC2CF5AD770999UL)]
    [InlineData("Nobody inspects the spammish repetition", 0xFBCEA83C8A378BF1UL)]
    public void Ascii_strings_match_reference_values(string text, ulong expected)
    {
        Assert.Equal(expected, XxHash64.Hash(Encoding.ASCII.GetBytes(text)));
    }

    [Theory]
    [MemberData(nameof(PatternSeedZero))]
    public void Pattern_of_every_length_up_to_100_matches_reference_with_seed_zero(int length, ulong expected)
    {
        Assert.Equal(expected, XxHash64.Hash(Pattern(length)));
    }

    [Theory]
    [InlineData(0, 0x1UL, 0xD5AFBA1336A3BE4BUL)]
    [InlineData(1, 0x1UL, 0x653CE83BAFFA4F91UL)]
    [InlineData(3, 0x1UL, 0x5EBFDA8C9072A30DUL)]
    [InlineData(4, 0x1UL, 0x76C235E6330F623DUL)]
    [InlineData(5, 0x1UL, 0xDB663DEBD3CCD17AUL)]
    [InlineData(7, 0x1UL, 0xE75581B7BFA15EC7UL)]
    [InlineData(8, 0x1UL, 0xFBBEE60BA1FF4594UL)]
    [InlineData(9, 0x1UL, 0xB07B63C711F0F9BAUL)]
    [InlineData(15, 0x1UL, 0xA362247C52F76975UL)]
    [InlineData(16, 0x1UL, 0x8381704F10794F13UL)]
    [InlineData(31, 0x1UL, 0x30C494E3D8EA5C92UL)]
    [InlineData(32, 0x1UL, 0xE73ACCC75E541B60UL)]
    [InlineData(33, 0x1UL, 0x0FD4B34807971DA4UL)]
    [InlineData(63, 0x1UL, 0x09ABC95B9A7FA569UL)]
    [InlineData(64, 0x1UL, 0x166DFDFDB0C6703EUL)]
    [InlineData(65, 0x1UL, 0xBA4C674AD6C934A1UL)]
    [InlineData(100, 0x1UL, 0xC55E58FF8694359CUL)]
    [InlineData(0, 0x9E3779B97F4A7C15UL, 0xC4349FC93C010000UL)]
    [InlineData(1, 0x9E3779B97F4A7C15UL, 0x3F7EBBD0A20F83CCUL)]
    [InlineData(3, 0x9E3779B97F4A7C15UL, 0xB829B5FBBA7F12FBUL)]
    [InlineData(4, 0x9E3779B97F4A7C15UL, 0x4D32E4C842C6371EUL)]
    [InlineData(5, 0x9E3779B97F4A7C15UL, 0x5E7CC3492DB5A387UL)]
    [InlineData(7, 0x9E3779B97F4A7C15UL, 0x566314BF1BDA8AABUL)]
    [InlineData(8, 0x9E3779B97F4A7C15UL, 0x696E1FE0E0DF37F4UL)]
    [InlineData(9, 0x9E3779B97F4A7C15UL, 0x0B41ADDA7E7D4818UL)]
    [InlineData(15, 0x9E3779B97F4A7C15UL, 0x17069DD519D90D9DUL)]
    [InlineData(16, 0x9E3779B97F4A7C15UL, 0x223FC12E174C04D1UL)]
    [InlineData(31, 0x9E3779B97F4A7C15UL, 0xA348B910BC65B7BDUL)]
    [InlineData(32, 0x9E3779B97F4A7C15UL, 0x41C2EADA450D18F0UL)]
    [InlineData(33, 0x9E3779B97F4A7C15UL, 0xB6F8C0B76AF8F9DAUL)]
    [InlineData(63, 0x9E3779B97F4A7C15UL, 0xDCFE31720304F52BUL)]
    [InlineData(64, 0x9E3779B97F4A7C15UL, 0x4779D2A26A5085A9UL)]
    [InlineData(65, 0x9E3779B97F4A7C15UL, 0x07952988B7909C15UL)]
    [InlineData(100, 0x9E3779B97F4A7C15UL, 0xE38491A6DAEB0E8AUL)]
    [InlineData(0, 0xFFFFFFFFFFFFFFFFUL, 0x298F4C84B24F5380UL)]
    [InlineData(1, 0xFFFFFFFFFFFFFFFFUL, 0x40068883E9DD8859UL)]
    [InlineData(3, 0xFFFFFFFFFFFFFFFFUL, 0x0BABDACFEA5C0F63UL)]
    [InlineData(4, 0xFFFFFFFFFFFFFFFFUL, 0x8D1C55D11990167DUL)]
    [InlineData(5, 0xFFFFFFFFFFFFFFFFUL, 0xF1FEAFAEEE40D61CUL)]
    [InlineData(7, 0xFFFFFFFFFFFFFFFFUL, 0xC704098163038854UL)]
    [InlineData(8, 0xFFFFFFFFFFFFFFFFUL, 0xD097F8DFF42A2A81UL)]
    [InlineData(9, 0xFFFFFFFFFFFFFFFFUL, 0xB3F583A26DAAF57BUL)]
    [InlineData(15, 0xFFFFFFFFFFFFFFFFUL, 0x5259DF9F10E06F49UL)]
    [InlineData(16, 0xFFFFFFFFFFFFFFFFUL, 0x3BC469FEC872D075UL)]
    [InlineData(31, 0xFFFFFFFFFFFFFFFFUL, 0xAD7F73B8B02137C7UL)]
    [InlineData(32, 0xFFFFFFFFFFFFFFFFUL, 0xCA35AB19542AA4C2UL)]
    [InlineData(33, 0xFFFFFFFFFFFFFFFFUL, 0x2C26C5A2A1784255UL)]
    [InlineData(63, 0xFFFFFFFFFFFFFFFFUL, 0xA7D7E3DF148B1142UL)]
    [InlineData(64, 0xFFFFFFFFFFFFFFFFUL, 0xFB41F87C873380AAUL)]
    [InlineData(65, 0xFFFFFFFFFFFFFFFFUL, 0xDAD8AE234FEB8134UL)]
    [InlineData(100, 0xFFFFFFFFFFFFFFFFUL, 0x4597AFB8DD115092UL)]
    public void Pattern_with_non_zero_seed_matches_reference(int length, ulong seed, ulong expected)
    {
        Assert.Equal(expected, XxHash64.Hash(Pattern(length), seed));
    }

    [Theory]
    [InlineData(1000, 0x128DA10CFBDC59D9UL)]
    [InlineData(1 << 20, 0x8993FEC9BE75C186UL)]
    public void Long_inputs_match_reference(int length, ulong expected)
    {
        Assert.Equal(expected, XxHash64.Hash(Pattern(length)));
    }

    [Theory]
    [InlineData(1)]
    [InlineData(3)]
    [InlineData(7)]
    public void Unaligned_input_hashes_like_aligned_input(int offset)
    {
        byte[] padded = new byte[offset + 100 + 5];
        Pattern(100).CopyTo(padded, offset);

        Assert.Equal(0x4826E367566EA023UL, XxHash64.Hash(padded.AsSpan(offset, 100)));
    }

    [Fact]
    public void Seed_changes_the_hash()
    {
        byte[] data = Pattern(40);
        Assert.NotEqual(XxHash64.Hash(data, 0), XxHash64.Hash(data, 1));
    }

    private static byte[] Pattern(int length)
    {
        byte[] data = new byte[length];
        for (int i = 0; i < length; i++)
        {
            data[i] = unchecked((byte)((i * 37) + 11));
        }

        return data;
    }
}
