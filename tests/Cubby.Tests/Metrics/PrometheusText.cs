using System.Globalization;
using System.Net.Http.Headers;
using System.Text;

namespace Cubby.Tests.Metrics;

/// <summary>Reads a silo's <c>/metrics</c> and the value of one series in it.</summary>
internal static class PrometheusText
{
    public static async Task<string> ReadAsync(HttpClient http, string? password = null)
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, "/metrics");
        if (password is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes("scraper:" + password)));
        }

        using var response = await http.SendAsync(request);
        response.EnsureSuccessStatusCode();
        Assert.Equal("text/plain", response.Content.Headers.ContentType?.MediaType);
        return await response.Content.ReadAsStringAsync();
    }

    /// <summary>The value of the sample named exactly <paramref name="series"/> (with its labels); 0 when absent.</summary>
    public static double Value(string text, string series)
    {
        foreach (var line in text.Split('\n'))
        {
            if (line.StartsWith(series + " ", StringComparison.Ordinal))
            {
                return double.Parse(line[(series.Length + 1)..], CultureInfo.InvariantCulture);
            }
        }

        return 0;
    }
}
