// cadbridge's MCP surface driven by the official TypeScript SDK's client.
//
//   node client.mjs http://127.0.0.1:PORT/mcp
//   node client.mjs stdio COMMAND ARGS...
//
// Each check prints "ok NAME" or "FAIL NAME: why"; the last line is
// "N passed, N failed", and the exit code is 1 if any failed.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const [target, ...rest] = process.argv.slice(2);
if (!target) {
  console.error("usage: node client.mjs URL | stdio COMMAND ARGS...");
  process.exit(2);
}

// What the user answers to the next elicitation: "approve", "deny", or
// "hang" (never answers; the request is then cancelled).
let answer = "approve";
const asked = [];
let askedNow = () => {};

const client = new Client({ name: "cadbridge-ts-test", version: "1.0.0" }, { capabilities: { elicitation: {} } });
client.setRequestHandler(ElicitRequestSchema, async (req, extra) => {
  asked.push(req.params.message);
  askedNow();
  if (answer === "hang") {
    await new Promise((resolve) => extra.signal.addEventListener("abort", resolve));
    return { action: "cancel" };
  }
  return { action: "accept", content: { decision: answer } };
});

const transport =
  target === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target));
await client.connect(transport);

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed++;
    console.log(`ok ${name}`);
  } catch (err) {
    failed++;
    console.log(`FAIL ${name}: ${err?.stack ?? err}`);
  }
}

const call = (name, args, options) => client.callTool({ name, arguments: args }, undefined, options);
const typedError = (res) => {
  assert.equal(res.isError, true, `isError of ${JSON.stringify(res)}`);
  const e = res._meta?.["cadbridge/error"];
  assert.ok(e?.kind, `the typed error in _meta of ${JSON.stringify(res)}`);
  return e;
};
async function newDocument() {
  const res = await call("document_create", { name: "ts" });
  const id = res.structuredContent?.document?.document_id;
  assert.ok(id, `document id in ${JSON.stringify(res)}`);
  return id;
}
async function entityCount(doc) {
  const res = await call("document_info", { document_id: doc });
  return res.structuredContent.entity_count;
}
const steps = (...more) => [
  { tool: "entity_create_line", args: { x1: 0, y1: 0, x2: 10, y2: 0 }, bind: "base" },
  { tool: "entity_copy", args: { handle: "$base", dx: 0, dy: 5 }, bind: "copy" },
  ...more,
];
const deleteBase = { tool: "entity_delete_many", args: { handles: ["$base"] } };

await check("tools/list has schemas and annotations", async () => {
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map((t) => [t.name, t]));
  for (const name of ["document_create", "entity_create_line", "entity_get", "entity_delete_many", "cad_batch"]) {
    assert.ok(byName[name], `tool ${name}`);
    assert.ok(byName[name].inputSchema?.properties, `${name} input schema`);
    assert.ok(byName[name].outputSchema, `${name} output schema`);
    assert.equal(byName[name].annotations?.openWorldHint, false, `${name} openWorldHint`);
  }
  assert.equal(byName.entity_get.annotations.readOnlyHint, true);
  assert.equal(byName.entity_delete_many.annotations.destructiveHint, true);
  assert.ok(byName.entity_create_line.inputSchema.properties.document_id);
  assert.ok(byName.cad_batch.inputSchema.properties.steps);
});

const doc = await newDocument();

await check("tools/call entity_create_line", async () => {
  const res = await call("entity_create_line", { document_id: doc, x1: 0, y1: 0, x2: 3, y2: 4 });
  assert.notEqual(res.isError, true);
  assert.match(res.structuredContent.handle, /^[0-9A-F]+$/);
  assert.ok(res.content.some((c) => c.type === "resource_link" && c.uri === `cad://documents/${doc}/drawing.svg`));
});

await check("cad_batch with $references", async () => {
  const res = await call("cad_batch", { document_id: doc, steps: steps() });
  assert.equal(res.structuredContent.status, "completed");
  assert.ok(res.structuredContent.bindings.copy);
});

await check("a failing step is a typed error", async () => {
  const res = await call("cad_batch", {
    document_id: doc,
    on_error: "stop",
    steps: steps({ tool: "entity_move", args: { handle: "FFFF", dx: 1, dy: 1 } }),
  });
  const e = typedError(res);
  assert.ok(e.operation_id, "operation id");
  assert.equal(res.structuredContent.results[2].status, "error");
  const bad = await call("entity_create_circle", { document_id: doc, cx: 0, cy: 0, radius: "big" });
  const ae = typedError(bad);
  assert.equal(ae.kind, "invalid_args");
  assert.equal(ae.path, "/radius");
});

for (const [decision, status, entities] of [
  ["approve", "completed", 1],
  ["deny", "rolled_back", 0],
]) {
  await check(`a destructive step, ${decision} by elicitation`, async () => {
    const d = await newDocument();
    answer = decision;
    asked.length = 0;
    const res = await call("cad_batch", { document_id: d, on_error: "rollback", steps: steps(deleteBase) });
    assert.equal(res.structuredContent.status, status);
    assert.equal(asked.length, 1);
    assert.match(asked[0], /entity_delete_many/);
    assert.equal(await entityCount(d), entities);
  });
}

await check("progress notifications for a batch", async () => {
  const seen = [];
  const res = await call("cad_batch", { document_id: doc, steps: steps() }, { onprogress: (p) => seen.push([p.progress, p.total]) });
  assert.equal(res.structuredContent.status, "completed");
  // The SDK runs notification handlers a microtask later than it takes a
  // response, so a notification read in the same chunk as the response
  // is dropped as "unknown token"; the server sends the result a moment
  // after the last notification for that.
  assert.deepEqual(seen, [[1, 2], [2, 2]], JSON.stringify(seen));
});

await check("a cancelled batch is rolled back", async () => {
  const d = await newDocument();
  answer = "hang";
  const waiting = new Promise((resolve) => (askedNow = resolve));
  const controller = new AbortController();
  const pending = call("cad_batch", { document_id: d, on_error: "rollback", steps: steps(deleteBase) }, { signal: controller.signal });
  await waiting;
  askedNow = () => {};
  controller.abort();
  await assert.rejects(pending);
  answer = "approve";
  let n = -1;
  for (let i = 0; i < 200 && n !== 0; i++) {
    n = await entityCount(d);
    if (n !== 0) await new Promise((r) => setTimeout(r, 25));
  }
  assert.equal(n, 0, "entities after the cancelled batch");
});

await check("a retry with the same operation id replays", async () => {
  const args = { document_id: doc, operation_id: `op-ts-${Date.now()}`, steps: steps() };
  const first = await call("cad_batch", args);
  const before = await entityCount(doc);
  const again = await call("cad_batch", args);
  assert.equal(again.structuredContent.replayed, true);
  assert.equal(again.structuredContent.operation_id, first.structuredContent.operation_id);
  assert.equal(await entityCount(doc), before);
});

await check("resources/read of the SVG drawing", async () => {
  const res = await client.readResource({ uri: `cad://documents/${doc}/drawing.svg` });
  assert.equal(res.contents[0].mimeType, "image/svg+xml");
  assert.match(res.contents[0].text, /<svg/);
  const templates = await client.listResourceTemplates();
  assert.ok(templates.resourceTemplates.some((t) => t.uriTemplate.startsWith("cad://documents/{id}/drawing.dxf{?revision")));
});

await check("view_render is image content, a one-line text, no bytes in structuredContent", async () => {
  const res = await call("view_render", { document_id: doc, width: 320 });
  assert.notEqual(res.isError, true, JSON.stringify(res.content));
  const image = res.content.find((c) => c.type === "image");
  assert.equal(image?.mimeType, "image/png");
  const png = Buffer.from(image.data, "base64");
  assert.equal(png.subarray(1, 4).toString(), "PNG");
  assert.equal(png.readUInt32BE(16), 320); // IHDR width
  assert.equal(res.structuredContent.data, "");
  assert.equal(res.structuredContent.width, 320);
  const text = res.content.filter((c) => c.type === "text").map((c) => c.text).join("");
  assert.ok(!text.includes("\n") && !text.includes("{"), text);
});

await check("a PDF export is a link to the file of that revision, which reads", async () => {
  const res = await call("document_export", { document_id: doc, format: "pdf" });
  const link = res.content.find((c) => c.type === "resource_link");
  assert.match(link?.uri ?? "", new RegExp(`^cad://documents/${doc}/drawing\\.pdf\\?revision=\\d+$`));
  assert.equal(res.structuredContent.data, "");
  const file = await client.readResource({ uri: link.uri });
  assert.equal(Buffer.from(file.contents[0].blob, "base64").subarray(0, 4).toString(), "%PDF");
});

if (target !== "stdio") {
  // The TypeScript SDK speaks 2025-11-25; a 2026-07-28 round is made by
  // hand: a tampered requestState is refused.
  await check("a tampered round-trip state is refused (2026-07-28)", async () => {
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": { elicitation: { form: {} } },
      "io.modelcontextprotocol/clientInfo": { name: "by-hand", version: "1" },
    };
    const d = await newDocument();
    const params = { name: "cad_batch", arguments: { document_id: d, on_error: "rollback", steps: steps(deleteBase) }, _meta: meta };
    const post = async (body) => {
      const r = await fetch(target, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", "Mcp-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "cad_batch" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: body }),
      });
      const text = await r.text();
      const line = text.split("\n").find((l) => l.startsWith("data: ")) ?? text;
      return JSON.parse(line.replace(/^data: /, ""));
    };
    const first = await post(params);
    assert.equal(first.result?.resultType, "input_required", JSON.stringify(first));
    const [id] = Object.keys(first.result.inputRequests);
    const inputResponses = { [id]: { action: "accept", content: { decision: "approve" } } };
    const tampered = first.result.requestState.replace(/^./, (c) => (c === "e" ? "f" : "e"));
    const refused = await post({ ...params, inputResponses, requestState: tampered });
    assert.ok(refused.error, `tampered state answered ${JSON.stringify(refused)}`);
    assert.match(refused.error.message, /requestState refused/);
    assert.equal(await entityCount(d), 2, "nothing deleted after the refusal");
    const done = await post({ ...params, inputResponses, requestState: first.result.requestState });
    assert.equal(done.result?.structuredContent?.status, "completed", JSON.stringify(done));
  });
}

await client.close();
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
