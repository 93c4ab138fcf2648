using System.Text;
using Cubby.Silo.Commands;

namespace Cubby.Tests.Silo;

/// <summary>The silo finds a command from the request's bytes in any letter case, and nothing else.</summary>
public sealed class CommandLookupTests
{
    private static readonly CommandTable Table = CommandTable.Create();

    public static TheoryData<string> Names() => [.. Table.All.Select(static command => command.Name)];

    [Theory]
    [MemberData(nameof(Names))]
    public void Every_command_is_found_in_lower_upper_and_mixed_case(string name)
    {
        var mixed = string.Concat(name.Select(static (c, i) => i % 2 == 0 ? char.ToUpperInvariant(c) : c));
        foreach (var spelling in new[] { name, name.ToUpperInvariant(), mixed })
        {
            Assert.Same(Table.All.Single(command => command.Name == name), Table.Find(Encoding.ASCII.GetBytes(spelling)));
        }
    }

    [Theory]
    [InlineData("GETT")]
    [InlineData("GE")]
    [InlineData("GET ")]
    [InlineData("G\u00c9T")]
    [InlineData("")]
    public void A_name_that_differs_by_more_than_letter_case_is_not_found(string name) =>
        Assert.Null(Table.Find(Encoding.Latin1.GetBytes(name)));

    [Theory]
    [InlineData("%CHO")] // '%' is 'E' less 0x20
    [InlineData("\u0085CHO")] // and 0x85 is 'e' plus 0x20
    [InlineData("G%T")]
    public void A_byte_a_case_bit_away_from_a_letter_is_not_that_letter(string name) =>
        Assert.Null(Table.Find(Encoding.Latin1.GetBytes(name)));
}
