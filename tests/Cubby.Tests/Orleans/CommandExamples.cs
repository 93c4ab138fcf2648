namespace Cubby.Tests.Orleans;

/// <summary>
/// Invocations of every command on keys, each after its own setup, with <c>{a}</c>, <c>{b}</c> and <c>{c}</c> standing
/// for three keys of one shard. Replies must not depend on the keys' names or on the clock (no PTTL of a key with a
/// time to live), so that the same invocation answers the same bytes wherever it runs. The tests check that every
/// command of the command table has examples here.
/// </summary>
internal static class CommandExamples
{
    public static readonly IReadOnlyDictionary<string, Example[]> ByCommand = new Dictionary<string, Example[]>
    {
        ["get"] = [Ex("GET {a}", "SET {a} hello"), Ex("GET {a}"), Ex("GET {a}", "HSET {a} f v")],
        ["set"] = [Ex("SET {a} v"), Ex("SET {a} v NX", "SET {a} x"), Ex("SET {a} v XX GET", "SET {a} x"), Ex("SET {a} v EX 0"), Ex("SET {a} v KEEPTTL GET", "SET {a} x EX 100"), Ex("SET {a} v NX XX")],
        ["setnx"] = [Ex("SETNX {a} v"), Ex("SETNX {a} v", "SET {a} x")],
        ["setex"] = [Ex("SETEX {a} 100 v"), Ex("SETEX {a} -1 v")],
        ["psetex"] = [Ex("PSETEX {a} 100000 v"), Ex("PSETEX {a} x v")],
        ["getex"] = [Ex("GETEX {a}", "SET {a} hello"), Ex("GETEX {a} PERSIST", "SET {a} hello EX 100"), Ex("GETEX {a} EX 100", "SET {a} hello"), Ex("GETEX {a}")],
        ["getdel"] = [Ex("GETDEL {a}", "SET {a} hello"), Ex("GETDEL {a}")],
        ["getset"] = [Ex("GETSET {a} new", "SET {a} hello"), Ex("GETSET {a} new")],
        ["mget"] = [Ex("MGET {a} {b} {c}", "SET {a} x", "HSET {c} f v")],
        ["mset"] = [Ex("MSET {a} 1 {b} 2"), Ex("MSET {a} 1 {b}")],
        ["msetnx"] = [Ex("MSETNX {a} 1 {b} 2"), Ex("MSETNX {a} 1 {b} 2", "SET {b} 0")],
        ["append"] = [Ex("APPEND {a} xyz"), Ex("APPEND {a} xyz", "SET {a} hi")],
        ["strlen"] = [Ex("STRLEN {a}", "SET {a} hello"), Ex("STRLEN {a}")],
        ["lcs"] = [Ex("LCS {a} {b}", "SET {a} ohmytext", "SET {b} mynewtext"), Ex("LCS {a} {b} LEN", "SET {a} ohmytext", "SET {b} mynewtext"), Ex("LCS {a} {b} IDX MINMATCHLEN 2 WITHMATCHLEN", "SET {a} ohmytext", "SET {b} mynewtext"), Ex("LCS {a} {b}", "HSET {a} f v")],
        ["getrange"] = [Ex("GETRANGE {a} 0 3", "SET {a} this-is-a-string"), Ex("GETRANGE {a} -3 -1", "SET {a} this-is-a-string"), Ex("GETRANGE {a} 0 -1")],
        ["setrange"] = [Ex("SETRANGE {a} 6 Redis", "SET {a} hello-world"), Ex("SETRANGE {a} 3 xx"), Ex("SETRANGE {a} -1 xx")],
        ["getbit"] = [Ex("GETBIT {a} 1", "SET {a} a"), Ex("GETBIT {a} 100")],
        ["setbit"] = [Ex("SETBIT {a} 7 1"), Ex("SETBIT {a} 0 1", "SET {a} x"), Ex("SETBIT {a} 0 2")],
        ["bitcount"] = [Ex("BITCOUNT {a}", "SET {a} foobar"), Ex("BITCOUNT {a} 1 1", "SET {a} foobar"), Ex("BITCOUNT {a} 5 30 BIT", "SET {a} foobar")],
        ["bitpos"] = [Ex("BITPOS {a} 1", "SET {a} foobar"), Ex("BITPOS {a} 0 1", "SET {a} foobar"), Ex("BITPOS {a} 1")],
        ["incr"] = [Ex("INCR {a}"), Ex("INCR {a}", "SET {a} 10"), Ex("INCR {a}", "SET {a} x")],
        ["decr"] = [Ex("DECR {a}"), Ex("DECR {a}", "SET {a} 10")],
        ["incrby"] = [Ex("INCRBY {a} 5"), Ex("INCRBY {a} x")],
        ["decrby"] = [Ex("DECRBY {a} 5", "SET {a} 1")],
        ["incrbyfloat"] = [Ex("INCRBYFLOAT {a} 10.5"), Ex("INCRBYFLOAT {a} 2.0e2", "SET {a} 5.0e3"), Ex("INCRBYFLOAT {a} x")],

        ["hset"] = [Ex("HSET {a} f v g w"), Ex("HSET {a} f v", "SET {a} x"), Ex("HSET {a} f v", "HSET {a} f x")],
        ["hmset"] = [Ex("HMSET {a} f v g w")],
        ["hsetnx"] = [Ex("HSETNX {a} f w", "HSET {a} f v"), Ex("HSETNX {a} g w", "HSET {a} f v")],
        ["hget"] = [Ex("HGET {a} f", "HSET {a} f v"), Ex("HGET {a} nope", "HSET {a} f v"), Ex("HGET {a} f", "SET {a} x")],
        ["hmget"] = [Ex("HMGET {a} f nope", "HSET {a} f v")],
        ["hdel"] = [Ex("HDEL {a} f nope", "HSET {a} f v g w"), Ex("HDEL {a} f", "HSET {a} f v")],
        ["hexists"] = [Ex("HEXISTS {a} f", "HSET {a} f v"), Ex("HEXISTS {a} g")],
        ["hlen"] = [Ex("HLEN {a}", "HSET {a} f v g w"), Ex("HLEN {a}")],
        ["hstrlen"] = [Ex("HSTRLEN {a} f", "HSET {a} f value")],
        ["hkeys"] = [Ex("HKEYS {a}", "HSET {a} f v g w")],
        ["hvals"] = [Ex("HVALS {a}", "HSET {a} f v g w")],
        ["hgetall"] = [Ex("HGETALL {a}", "HSET {a} f v g w"), Ex("HGETALL {a}")],
        ["hincrby"] = [Ex("HINCRBY {a} f 5", "HSET {a} f 1"), Ex("HINCRBY {a} f 5", "HSET {a} f x")],
        ["hincrbyfloat"] = [Ex("HINCRBYFLOAT {a} f 1.5", "HSET {a} f 1")],
        ["hscan"] = [Ex("HSCAN {a} 0", "HSET {a} f v g w"), Ex("HSCAN {a} 0 MATCH f*", "HSET {a} f v g w"), Ex("HSCAN {a} x")],
        ["hrandfield"] = [Ex("HRANDFIELD {a}", "HSET {a} f v"), Ex("HRANDFIELD {a} -3 WITHVALUES", "HSET {a} f v"), Ex("HRANDFIELD {a} 2 WITHVALUES", "HSET {a} f v")],

        ["del"] = [Ex("DEL {a} {b} {c}", "SET {a} 1", "HSET {b} f v")],
        ["unlink"] = [Ex("UNLINK {a} {b}", "SET {a} 1")],
        ["exists"] = [Ex("EXISTS {a} {b} {a}", "SET {a} 1")],
        ["type"] = [Ex("TYPE {a}", "SET {a} 1"), Ex("TYPE {a}", "HSET {a} f v"), Ex("TYPE {a}")],
        ["rename"] = [Ex("RENAME {a} {b}", "SET {a} 1"), Ex("RENAME {a} {b}")],
        ["renamenx"] = [Ex("RENAMENX {a} {b}", "SET {a} 1", "SET {b} 2"), Ex("RENAMENX {a} {b}", "SET {a} 1")],
        ["copy"] = [Ex("COPY {a} {b}", "SET {a} 1"), Ex("COPY {a} {b} REPLACE", "SET {a} 1", "SET {b} 2"), Ex("COPY {a} {b} DB 1", "SET {a} 1")],
        ["object"] = [Ex("OBJECT ENCODING {a}", "SET {a} 12"), Ex("OBJECT REFCOUNT {a}", "SET {a} 1"), Ex("OBJECT FREQ {a}", "SET {a} 1"), Ex("OBJECT ENCODING {a}")],

        ["expire"] = [Ex("EXPIRE {a} 100", "SET {a} 1"), Ex("EXPIRE {a} 100 NX", "SET {a} 1 EX 50"), Ex("EXPIRE {a} x", "SET {a} 1")],
        ["pexpire"] = [Ex("PEXPIRE {a} 100000", "SET {a} 1"), Ex("PEXPIRE {a} 100000")],
        ["expireat"] = [Ex("EXPIREAT {a} 4102444800", "SET {a} 1")],
        ["pexpireat"] = [Ex("PEXPIREAT {a} 4102444800000", "SET {a} 1"), Ex("PEXPIREAT {a} 4102444800000 XX", "SET {a} 1")],
        ["persist"] = [Ex("PERSIST {a}", "SET {a} 1 EX 100"), Ex("PERSIST {a}", "SET {a} 1")],
        ["ttl"] = [Ex("TTL {a}", "SET {a} 1 EX 100"), Ex("TTL {a}", "SET {a} 1"), Ex("TTL {a}")],
        ["pttl"] = [Ex("PTTL {a}", "SET {a} 1"), Ex("PTTL {a}")],
        ["expiretime"] = [Ex("EXPIRETIME {a}", "SET {a} 1", "EXPIREAT {a} 4102444800"), Ex("EXPIRETIME {a}")],
        ["pexpiretime"] = [Ex("PEXPIRETIME {a}", "SET {a} 1", "PEXPIREAT {a} 4102444800123")],

        ["cubby.get"] = [Ex("CUBBY.GET {a}", "CUBBY.SET {a} v FLAGS 3"), Ex("CUBBY.GET {a}")],
        ["cubby.set"] = [Ex("CUBBY.SET {a} v FLAGS 3"), Ex("CUBBY.SET {a} v NX", "SET {a} x"), Ex("CUBBY.SET {a} v SLIDE 0")],
        ["cubby.refresh"] = [Ex("CUBBY.REFRESH {a}", "CUBBY.SET {a} v SLIDE 100000"), Ex("CUBBY.REFRESH {a}")],
        ["cubby.owner"] = [Ex("CUBBY.OWNER {a}")],
    };

    private static Example Ex(string command, params string[] setup) => new(setup, command);

    /// <summary>One invocation: commands that set the keys up, then the command whose reply is compared.</summary>
    internal sealed record Example(string[] Setup, string Command)
    {
        public override string ToString() => Setup.Length == 0 ? Command : $"{string.Join("; ", Setup)}; {Command}";
    }
}
