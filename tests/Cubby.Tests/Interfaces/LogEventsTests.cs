using System.Reflection;
using Cubby.Diagnostics;
using Microsoft.Extensions.Logging;

namespace Cubby.Tests.Interfaces;

/// <summary>Every <c>[LoggerMessage]</c> in Cubby's assemblies takes its event id from <see cref="LogEvents"/>, and no two share one.</summary>
public sealed class LogEventsTests
{
    private const BindingFlags AnyMethod = BindingFlags.Static | BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.DeclaredOnly;

    [Fact]
    public void Every_logged_event_id_is_registered_once_and_every_registered_id_is_logged_exactly_once()
    {
        var fields = typeof(LogEvents).GetFields(BindingFlags.Public | BindingFlags.Static);
        var registered = fields.Select(field => (int)field.GetRawConstantValue()!).ToList();
        Assert.Equal(registered.Count, registered.Distinct().Count());

        var logged = new[] { "Cubby.Silo", "Cubby.Grains", "Cubby.Client" }
            .Select(Assembly.Load)
            .SelectMany(assembly => assembly.GetTypes())
            .SelectMany(type => type.GetMethods(AnyMethod))
            .SelectMany(method => method.GetCustomAttributes<LoggerMessageAttribute>().Select(attribute => (Method: $"{method.DeclaringType!.FullName}.{method.Name}", attribute.EventId)))
            .ToList();

        Assert.NotEmpty(logged);
        Assert.All(logged, entry => Assert.True(registered.Contains(entry.EventId), $"{entry.Method} logs event {entry.EventId}, which LogEvents does not register"));
        Assert.Empty(logged.GroupBy(entry => entry.EventId).Where(group => group.Count() > 1).Select(group => $"{group.Key}: {string.Join(", ", group.Select(entry => entry.Method))}"));
        Assert.Equal(registered.Order(), logged.Select(entry => entry.EventId).Order());
    }
}
