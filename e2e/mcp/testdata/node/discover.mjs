// An agent on cadbridge's discover profile (DESIGN §13), driven by the
// official TypeScript SDK's client: it is listed eight tools, finds the
// others with tool_search and tool_describe, draws with ones it was not
// listed in a cad_batch, and looks at the result with view_render.
//
//   node discover.mjs http://127.0.0.1:PORT/mcp
//   node discover.mjs stdio COMMAND ARGS...
//
// Over stdio the server is given CADBRIDGE_MCP_PROFILE and XDG_DATA_HOME
// from this process's environment, when set (the SDK passes a server only
// a few variables). Each check prints "ok NAME" or "FAIL NAME: why"; the
// last line is "N passed, N failed", and the exit code is 1 if any failed.
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { StdioClientTransport, getDefaultEnvironment } from "@modelcontextprotocol/sdk/client/stdio.js";

const [target, ...rest] = process.argv.slice(2);
if (!target) {
  console.error("usage: node discover.mjs URL | stdio COMMAND ARGS...");
  process.exit(2);
}

const env = getDefaultEnvironment();
for (const name of ["CADBRIDGE_MCP_PROFILE", "XDG_DATA_HOME"]) {
  if (process.env[name]) env[name] = process.env[name];
}
const client = new Client({ name: "cadbridge-ts-discover", version: "1.0.0" });
await client.connect(
  target === "stdio"
    ? new StdioClientTransport({ command: rest[0], args: rest.slice(1), env, stderr: "inherit" })
    : new StreamableHTTPClientTransport(new URL(target)),
);

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

// The longest string a result may carry in structuredContent or text:
// files and pictures are image content or resource links, never strings
// a model has to read through.
const longest = 20000;

// results are every tool result of the scenario, for the last check.
const results = [];
async function call(name, args) {
  const res = await client.callTool({ name, arguments: args });
  results.push({ name, res });
  assert.notEqual(res.isError, true, `${name}: ${JSON.stringify(res.content)}`);
  return res;
}

// longStrings are the paths of the strings longer than limit in v.
function longStrings(v, path, limit, out = []) {
  if (typeof v === "string") {
    if (v.length > limit) out.push(`${path} (${v.length} characters)`);
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => longStrings(x, `${path}/${i}`, limit, out));
  } else if (v && typeof v === "object") {
    for (const [k, x] of Object.entries(v)) longStrings(x, `${path}/${k}`, limit, out);
  }
  return out;
}

const texts = (res) => res.content.filter((c) => c.type === "text").map((c) => c.text);

// pngWidth is the width in a PNG's IHDR chunk, from its base64.
function pngWidth(base64) {
  const png = Buffer.from(base64, "base64");
  assert.equal(png.subarray(0, 8).toString("hex"), "89504e470d0a1a0a", "PNG signature");
  assert.equal(png.subarray(12, 16).toString(), "IHDR");
  return png.readUInt32BE(16);
}

const discoverSet = ["cad_batch", "tool_search", "tool_describe", "view_render", "document_create", "document_info", "document_import", "document_export"];
let listed = [];
await check("tools/list is exactly the discover set", async () => {
  const { tools } = await client.listTools();
  listed = tools.map((t) => t.name);
  assert.deepEqual([...listed].sort(), [...discoverSet].sort());
  for (const t of tools) assert.ok(t.inputSchema?.properties, `${t.name} input schema`);
});

// found: what tool_search found for each request, by the tool wanted.
const found = {};
for (const [query, want] of [
  ["round this corner", "entity_fillet"],
  ["put six holes around the flange", "entity_array_polar"],
]) {
  await check(`tool_search "${query}" finds ${want} in the top 3`, async () => {
    const res = await call("tool_search", { query });
    const names = res.structuredContent.tools.map((t) => t.name);
    assert.ok(names.slice(0, 3).includes(want), `${want} among the top 3 of ${names}`);
    assert.ok(!listed.includes(want), `${want} is not listed`);
    const match = res.structuredContent.tools.find((t) => t.name === want);
    assert.ok(match.summary && match.score > 0, JSON.stringify(match));
    found[want] = match.name;
  });
}

await check("tool_describe of what tool_search found", async () => {
  const names = [found.entity_fillet, found.entity_array_polar];
  const res = await call("tool_describe", { names });
  const [fillet, polar] = res.structuredContent.tools;
  assert.deepEqual([fillet?.name, polar?.name], names);
  for (const [tool, required] of [
    [fillet, ["handle1", "handle2", "radius"]],
    [polar, ["cx", "cy", "count"]],
  ]) {
    assert.ok(tool.description.length > 40, `${tool.name} description`);
    for (const r of required) {
      assert.ok(tool.input_schema.properties[r], `${tool.name} input ${r}`);
      assert.ok(tool.input_schema.required.includes(r), `${tool.name} requires ${r}`);
    }
    assert.ok(tool.output_schema.properties, `${tool.name} output schema`);
    assert.equal(tool.annotations.batchable, true, `${tool.name} batchable`);
  }
  assert.ok(polar.input_schema.properties.handles);
  assert.ok(fillet.output_schema.properties.handles);
});

let doc;
await check("document_create", async () => {
  const res = await call("document_create", { name: "flange" });
  doc = res.structuredContent.document.document_id;
  assert.match(doc, /^doc-/);
});

// The drawing: a corner of two lines at (100, 0), rounded with radius
// 10; a hole of radius 4 at (50, 30), and six of them round (50, 50).
let drawn;
await check("cad_batch with tools it was not listed: two lines, a fillet by $references, a circle, a polar array", async () => {
  const res = await call("cad_batch", {
    document_id: doc,
    verbose: true,
    steps: [
      { tool: "entity_create_line", args: { x1: 0, y1: 0, x2: 100, y2: 0 }, bind: "bottom" },
      { tool: "entity_create_line", args: { x1: 100, y1: 0, x2: 100, y2: 60 }, bind: "side" },
      { tool: found.entity_fillet, args: { handle1: "$bottom", handle2: "$side", radius: 10 }, bind: "round" },
      { tool: "entity_create_circle", args: { cx: 50, cy: 30, radius: 4 }, bind: "hole" },
      { tool: found.entity_array_polar, args: { handles: ["$hole"], cx: 50, cy: 50, count: 6 }, bind: "holes" },
    ],
  });
  const out = res.structuredContent;
  assert.equal(out.status, "completed", JSON.stringify(out));
  assert.deepEqual(out.counts, { executed: 5, succeeded: 5, failed: 0, skipped: 0 });
  const { bottom, side, round, hole } = out.bindings;
  assert.ok(bottom && side && round && hole && new Set([bottom, side, round, hole]).size === 4, JSON.stringify(out.bindings));
  const fillet = out.results[2].result;
  assert.equal(fillet.handle, round);
  assert.deepEqual([...fillet.handles].sort(), [round, bottom, side].sort(), "the arc and both lines, trimmed");
  const copies = out.results[4].result;
  assert.equal(copies.count, 5, JSON.stringify(copies));
  assert.equal(new Set(copies.handles).size, 5);
  drawn = { bottom, side, round, hole, copies: copies.handles };
});

// near: equal within a tolerance relative to the drawing's size, 100.
const near = (got, want, what) => assert.ok(Math.abs(got - want) <= 1e-9 * 100, `${what} = ${got}, want ${want}`);
await check("the corner is rounded and the holes are round the flange", async () => {
  const handles = [drawn.round, drawn.bottom, drawn.side, drawn.hole, ...drawn.copies];
  const res = await call("cad_batch", { document_id: doc, verbose: true, steps: handles.map((handle) => ({ tool: "entity_get", args: { handle } })) });
  assert.equal(res.structuredContent.status, "completed");
  const [arc, bottom, side, ...circles] = res.structuredContent.results.map((r) => r.result);
  assert.equal(arc.type, "arc");
  near(arc.center.x, 90, "arc centre x");
  near(arc.center.y, 10, "arc centre y");
  near(arc.radius, 10, "arc radius");
  near(bottom.end.x, 90, "bottom line's end x, trimmed to the arc");
  near(side.start.y, 10, "side line's start y, trimmed to the arc");
  // Six holes 60° apart on a circle of radius 20 round (50, 50), the
  // first at 270°.
  circles.forEach((c, i) => {
    const angle = ((270 + 60 * i) * Math.PI) / 180;
    assert.equal(c.type, "circle");
    near(c.radius, 4, `hole ${i} radius`);
    near(c.center.x, 50 + 20 * Math.cos(angle), `hole ${i} centre x`);
    near(c.center.y, 50 + 20 * Math.sin(angle), `hole ${i} centre y`);
  });
  const info = await call("document_info", { document_id: doc });
  assert.equal(info.structuredContent.entity_count, 9, "two lines, an arc and six circles");
});

await check("view_render is a 768 px PNG as image content and a short text", async () => {
  const res = await call("view_render", { document_id: doc });
  const images = res.content.filter((c) => c.type === "image");
  assert.equal(images.length, 1, JSON.stringify(res.content.map((c) => c.type)));
  assert.equal(images[0].mimeType, "image/png");
  assert.equal(pngWidth(images[0].data), 768);
  assert.equal(res.structuredContent.width, 768);
  assert.equal(res.structuredContent.data, "");
  const [text, ...more] = texts(res);
  assert.equal(more.length, 0);
  assert.ok(text.length > 0 && text.length <= 200 && !text.includes("\n") && !text.includes("{"), `text ${JSON.stringify(text)}`);
  assert.match(text, /9 entities/);
});

await check("document_export png is image content", async () => {
  const res = await call("document_export", { document_id: doc, format: "png" });
  const image = res.content.find((c) => c.type === "image");
  assert.equal(image?.mimeType, "image/png");
  assert.ok(pngWidth(image.data) > 0);
  assert.equal(res.structuredContent.data, "");
  assert.ok(!res.content.some((c) => c.type === "resource"), "no embedded file");
});

await check("document_export dxf is a resource link, not bytes", async () => {
  const res = await call("document_export", { document_id: doc, format: "dxf" });
  const links = res.content.filter((c) => c.type === "resource_link");
  assert.equal(links.length, 1, JSON.stringify(res.content));
  assert.match(links[0].uri, new RegExp(`^cad://documents/${doc}/drawing\\.dxf\\?revision=\\d+$`));
  assert.ok(!res.content.some((c) => c.type === "resource" || c.type === "image"), "no file in the content");
  assert.equal(res.structuredContent.content, "");
  assert.equal(res.structuredContent.data, "");
  assert.ok(texts(res).every((t) => !t.includes("SECTION")), "no DXF in the text");
  const file = await client.readResource({ uri: links[0].uri });
  assert.match(file.contents[0].text ?? Buffer.from(file.contents[0].blob, "base64").toString(), /SECTION[\s\S]*CIRCLE[\s\S]*EOF/);
});

await check(`no result carries a string over ${longest} characters in structuredContent or text`, async () => {
  assert.ok(results.length >= 10, `${results.length} results seen`);
  const seen = new Set(results.map((r) => r.name));
  for (const name of ["tool_search", "tool_describe", "cad_batch", "view_render", "document_export"]) assert.ok(seen.has(name), name);
  const over = [];
  for (const { name, res } of results) {
    longStrings(res.structuredContent, `${name}: structuredContent`, longest, over);
    texts(res).forEach((t, i) => longStrings(t, `${name}: text ${i}`, longest, over));
  }
  assert.deepEqual(over, []);
  // The walk finds what it looks for.
  assert.deepEqual(longStrings({ a: [{ b: "x".repeat(longest + 1) }, "short"] }, "probe", longest), [`probe/a/0/b (${longest + 1} characters)`]);
});

await client.close();
console.log(`${passed} passed, ${failed} failed (${results.length} tool results)`);
process.exit(failed === 0 ? 0 : 1);
