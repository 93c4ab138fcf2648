using System.Net.Http.Headers;
using System.Text;
using Cubby.Tests.Client;

namespace Cubby.Tests.Dashboard;

/// <summary>HTTP requests to a silo's dashboard, with or without Basic credentials.</summary>
internal static class DashboardHttp
{
    public static HttpClient For(System.Net.IPEndPoint http) =>
        new(new HttpClientHandler { AllowAutoRedirect = false }) { BaseAddress = new Uri($"http://{http}"), Timeout = TestDeadlines.Call };

    public static async Task<HttpResponseMessage> GetAsync(HttpClient client, string path, string? password = null, string user = "admin")
    {
        using var request = new HttpRequestMessage(HttpMethod.Get, path);
        if (password is not null)
        {
            request.Headers.Authorization = new AuthenticationHeaderValue("Basic", Convert.ToBase64String(Encoding.UTF8.GetBytes($"{user}:{password}")));
        }

        return await client.SendAsync(request);
    }
}
