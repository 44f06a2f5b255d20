// A Node MCP SDK client (@modelcontextprotocol/sdk) that plays a list of
// steps against a streamable HTTP server and prints ONE JSON object saying
// what each step saw. cmd/quiver's gateway tests drive quiver serve
// --upstreams with it.
//
//   node steps.mjs --http URL [--key KEY] --steps JSON
//
// Steps, played in order:
//
//   {"op": "list"}                       → {"names": [...], "raw": "<the tools/list result as JSON>"}
//   {"op": "call", "name": N, "arguments": {...}}
//                                        → {"isError", "text", "structured"} or {"rpcError": {"code", "message"}}
//   {"op": "mark", "quietMs": Q}         → {"count": notifications/tools/list_changed received so far},
//                                          taken once none arrived for Q ms (default 0)
//   {"op": "waitListChanged", "ms": N}   → {"changed": a list_changed arrived since the last mark, within N ms}
//   {"op": "waitUnlisted", "name": T, "ms": N}
//                                        → {"names": the listing once T left it (or at N ms),
//                                           "changed": a list_changed arrived since the last mark}
//
// Output: {"steps": [one result per step], "listChanged": total count}.
// Any other failure prints {"error": "..."} and exits 1.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

const overallMs = 90000;

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value`);
      return argv[++i];
    };
    switch (argv[i]) {
      case '--http':
        out.http = value();
        break;
      case '--key':
        out.key = value();
        break;
      case '--steps':
        out.steps = JSON.parse(value());
        break;
      default:
        throw new Error(`unknown argument ${JSON.stringify(argv[i])}; usage: steps.mjs --http URL [--key KEY] --steps JSON`);
    }
  }
  if (!out.http || !Array.isArray(out.steps)) throw new Error('usage: steps.mjs --http URL [--key KEY] --steps JSON');
  return out;
}

function text(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

async function list(client) {
  // One page: the server lists everything on one (a client that never
  // pages is what a stable list is for).
  const result = await client.listTools();
  return { names: result.tools.map((t) => t.name), raw: JSON.stringify(result) };
}

async function call(client, step) {
  try {
    const result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} }, undefined, { timeout: 60000 });
    const out = { isError: result.isError === true, text: text(result) };
    if (result.structuredContent !== undefined) out.structured = result.structuredContent;
    return out;
  } catch (err) {
    if (err instanceof McpError) return { rpcError: { code: err.code, message: err.message } };
    throw err;
  }
}

async function run(args) {
  const client = new Client({ name: 'quiver-node-steps', version: '1.0.0' }, { capabilities: {} });
  let changes = 0;
  let mark = 0;
  const waiters = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes++;
    for (const w of waiters.splice(0)) w();
  });
  const requestInit = args.key ? { headers: { Authorization: `Bearer ${args.key}` } } : undefined;
  const transport = new StreamableHTTPClientTransport(new URL(args.http), { requestInit });
  await client.connect(transport);
  const steps = [];
  try {
    for (const step of args.steps) {
      switch (step.op) {
        case 'list':
          steps.push(await list(client));
          break;
        case 'call':
          steps.push(await call(client, step));
          break;
        case 'mark': {
          let seen = -1;
          while (seen !== changes) {
            seen = changes;
            await new Promise((resolve) => setTimeout(resolve, step.quietMs ?? 0));
          }
          mark = changes;
          steps.push({ count: changes });
          break;
        }
        case 'waitListChanged': {
          if (changes > mark) {
            steps.push({ changed: true });
            break;
          }
          let timer;
          const changed = await Promise.race([
            new Promise((resolve) => waiters.push(() => resolve(true))),
            new Promise((resolve) => {
              timer = setTimeout(() => resolve(false), step.ms ?? 10000);
            }),
          ]);
          clearTimeout(timer);
          steps.push({ changed });
          break;
        }
        case 'waitUnlisted': {
          const until = Date.now() + (step.ms ?? 10000);
          let listed = await list(client);
          while (listed.names.includes(step.name) && Date.now() < until) {
            await new Promise((resolve) => setTimeout(resolve, 100));
            listed = await list(client);
          }
          steps.push({ names: listed.names, changed: changes > mark });
          break;
        }
        default:
          throw new Error(`unknown step ${JSON.stringify(step)}`);
      }
    }
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
  return { steps, listChanged: changes };
}

function describe(err) {
  const parts = [];
  for (let e = err; e !== undefined && e !== null && parts.length < 5; e = e.cause) {
    parts.push(e instanceof Error ? e.message : String(e));
    if (!(e instanceof Error)) break;
  }
  return parts.join(': ');
}

function finish(obj, code) {
  process.stdout.write(JSON.stringify(obj) + '\n', () => process.exit(code));
}

const deadline = setTimeout(() => finish({ error: `the steps did not finish in ${overallMs} ms` }, 1), overallMs);

try {
  const out = await run(parseArgs(process.argv.slice(2)));
  clearTimeout(deadline);
  finish(out, 0);
} catch (err) {
  clearTimeout(deadline);
  finish({ error: describe(err) }, 1);
}
