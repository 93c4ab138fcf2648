// node-redis's client-side cache against the silo at 127.0.0.1:<port>: reads a key twice (the second from its cache),
// has another connection change it, and waits for the cache to drop it (the silo's invalidation push); then FLUSHALL.
// Prints what it saw as JSON for Cubby.Tests to check.
import { createClient, BasicClientSideCache } from 'redis';

const url = `redis://127.0.0.1:${process.argv[2]}`;
const cache = new BasicClientSideCache({ ttl: 0, maxEntries: 0 });
const cached = createClient({ url, RESP: 3, clientSideCache: cache });
const writer = createClient({ url });
await cached.connect();
await writer.connect();

const key = `node-redis:${process.pid}`;
const until = async (read, wanted) => {
  const deadline = Date.now() + 20_000;
  let value = await read();
  while (value !== wanted && Date.now() < deadline) {
    await new Promise(resolve => setTimeout(resolve, 20));
    value = await read();
  }
  return value;
};

await writer.set(key, 'v1');
const first = await cached.get(key);
const second = await cached.get(key);
const afterTwoReads = cache.stats();
await writer.set(key, 'v2');
const afterWrite = await until(() => cached.get(key), 'v2');
await writer.flushAll();
const afterFlush = await until(() => cached.get(key), null);

console.log(JSON.stringify({ first, second, hits: afterTwoReads.hitCount, misses: afterTwoReads.missCount, afterWrite, afterFlush }));
await cached.quit();
await writer.quit();
