// A client of the mcp package's server built on the Node MCP SDK
// (@modelcontextprotocol/sdk), run by mcp/node_test.go. It connects over
// streamable HTTP or stdio, plays one fixed scenario and prints ONE JSON
// object on standard output saying what it saw:
//
//   node client.mjs --scenario JSON --http URL [--key KEY]
//   node client.mjs --scenario JSON --stdio CMD [ARGS...]
//
// --stdio takes the rest of the arguments as the server's command line.
// The scenario names the tools and arguments:
//
//   {"search": "read an invoice",                       // search_tools query
//    "call":    {"name": "lookup_invoice", "arguments": {"number": 7}},
//    "invalid": {"name": "find", "arguments": {"name": 7}},
//    "outside": {"name": "stage_refund", "arguments": {"invoice": 1}},
//    "waitMs":  5000}                                  // list_changed wait
//
// Output:
//
//   {"server": {"name", "version", "toolsListChanged"},
//    "before": [tool names], "search": {"isError", "text"},
//    "listChanged": bool, "listChangedCount": n, "after": [tool names],
//    "call": {"isError", "text", "structured"},
//    "invalid": {...}, "outside": {...}}
//
// where a call that ends in a JSON-RPC error instead of a result is
// {"rpcError": {"code", "message"}}. Any other failure prints
// {"error": "...", "code": n} and exits 1, code being the HTTP status or
// JSON-RPC error code when the error has one.

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

// The whole run must end well before the Go test's own deadline.
const overallMs = 30000;

function usage(msg) {
  throw new Error(`${msg}; usage: client.mjs --scenario JSON (--http URL [--key KEY] | --stdio CMD [ARGS...])`);
}

function parseArgs(argv) {
  const out = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      return argv[++i];
    };
    switch (arg) {
      case '--scenario':
        try {
          out.scenario = JSON.parse(value());
        } catch (err) {
          usage(`--scenario is not JSON: ${err.message}`);
        }
        break;
      case '--http':
        out.http = value();
        break;
      case '--key':
        out.key = value();
        break;
      case '--stdio':
        out.stdio = argv.slice(i + 1);
        if (out.stdio.length === 0) usage('--stdio needs a command');
        i = argv.length;
        break;
      default:
        usage(`unknown argument ${JSON.stringify(arg)}`);
    }
  }
  if (!out.scenario) usage('--scenario is missing');
  if (!out.http === !out.stdio) usage('give one of --http and --stdio');
  if (out.key && !out.http) usage('--key goes with --http');
  for (const step of ['call', 'invalid', 'outside']) {
    const s = out.scenario[step];
    if (!s || typeof s.name !== 'string') usage(`the scenario's ${step} needs a tool name`);
  }
  if (typeof out.scenario.search !== 'string') usage("the scenario's search needs a query");
  return out;
}

function transportFor(args) {
  if (args.http) {
    const requestInit = args.key ? { headers: { Authorization: `Bearer ${args.key}` } } : undefined;
    return new StreamableHTTPClientTransport(new URL(args.http), { requestInit });
  }
  const [command, ...rest] = args.stdio;
  // The server inherits the client's environment (the SDK passes only a
  // few variables by default), so the Go test sets the server's GORACE; its
  // standard error is the client's, which the Go test reads.
  return new StdioClientTransport({ command, args: rest, env: { ...process.env }, stderr: 'inherit' });
}

async function names(client) {
  const out = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    for (const tool of page.tools) out.push(tool.name);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}

function text(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('');
}

// call calls a tool and reports its result, or the JSON-RPC error that
// answered it instead.
async function call(client, step) {
  try {
    const result = await client.callTool({ name: step.name, arguments: step.arguments ?? {} });
    const out = { isError: result.isError === true, text: text(result) };
    if (result.structuredContent !== undefined) out.structured = result.structuredContent;
    return out;
  } catch (err) {
    if (err instanceof McpError) return { rpcError: { code: err.code, message: err.message } };
    throw err;
  }
}

async function run(args) {
  const sc = args.scenario;
  const client = new Client({ name: 'quiver-node-test-client', version: '1.0.0' }, { capabilities: {} });
  let changes = 0;
  let changed;
  const firstChange = new Promise((resolve) => {
    changed = resolve;
  });
  client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
    changes++;
    changed();
  });
  const transport = transportFor(args);
  await client.connect(transport);
  const out = {};
  try {
    const info = client.getServerVersion() ?? {};
    out.server = {
      name: info.name,
      version: info.version,
      toolsListChanged: client.getServerCapabilities()?.tools?.listChanged === true,
    };
    out.before = await names(client);
    const search = await call(client, { name: 'search_tools', arguments: { query: sc.search } });
    out.search = search;
    let timer;
    const waited = new Promise((resolve) => {
      timer = setTimeout(() => resolve(false), sc.waitMs ?? 5000);
    });
    out.listChanged = await Promise.race([firstChange.then(() => true), waited]);
    clearTimeout(timer);
    out.listChangedCount = changes;
    out.after = await names(client);
    out.call = await call(client, sc.call);
    out.invalid = await call(client, sc.invalid);
    out.outside = await call(client, sc.outside);
  } finally {
    if (args.http) {
      // End the session on the server (DELETE), as a well-behaved client does.
      await transport.terminateSession().catch(() => {});
    }
    await client.close();
  }
  return out;
}

// describe is an error's message with its causes ("fetch failed" says
// little without the refused connection under it).
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

const deadline = setTimeout(() => finish({ error: `the scenario did not finish in ${overallMs} ms` }, 1), overallMs);

try {
  const out = await run(parseArgs(process.argv.slice(2)));
  clearTimeout(deadline);
  finish(out, 0);
} catch (err) {
  clearTimeout(deadline);
  const report = { error: describe(err) };
  // An HTTP status (StreamableHTTPError) or a JSON-RPC error code (McpError).
  if (typeof err?.code === 'number') report.code = err.code;
  finish(report, 1);
}
