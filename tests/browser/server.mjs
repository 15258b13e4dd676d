// server.mjs: a static file server for the browser suite, on 127.0.0.1 at a free port.
//   /js/...      the package and the demo (js/)
//   /shared/...  ../shared/data (photos, labels)
//   /t/...       the suite's own files (compiled modules, reference tensors)
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { join, normalize, extname } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.mjs': 'text/javascript', '.js': 'text/javascript',
  '.wasm': 'application/wasm', '.png': 'image/png', '.jpg': 'image/jpeg', '.csv': 'text/plain',
  '.txt': 'text/plain', '.bin': 'application/octet-stream', '.ts': 'text/plain',
};

/** Starts the server: { url, close() }. roots: { prefix: folder }. A path under /iso/
 * is the same file served cross-origin isolated (COOP same-origin, COEP require-corp),
 * as threaded sessions need (SharedArrayBuffer; docs/abi.md "Threads"). */
export async function serve(roots) {
  const server = createServer(async (req, res) => {
    let path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const isolated = path.startsWith('/iso/');
    if (isolated) path = path.slice(4);
    const iso = isolated ? { 'cross-origin-opener-policy': 'same-origin', 'cross-origin-embedder-policy': 'require-corp' } : {};
    const prefix = Object.keys(roots).find((p) => path.startsWith(`/${p}/`));
    const rel = prefix && normalize(path.slice(prefix.length + 2));
    if (!rel || rel.startsWith('..')) {
      res.writeHead(404).end('not found');
      return;
    }
    try {
      const body = await readFile(join(roots[prefix], rel));
      res.writeHead(200, { 'content-type': TYPES[extname(rel)] || 'application/octet-stream', 'cache-control': 'no-store', ...iso }).end(body);
    } catch {
      res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}
