// Counts o200k_base tokens exactly, offline (npm tiktoken carries the rank
// tables). Reads {"name": "text", …} on stdin; writes {"name": count, …}.
// Used by cadbridge's catalog tests and `cadbridge mcp --catalog`.
import { get_encoding } from "tiktoken";

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
const texts = JSON.parse(input);
const enc = get_encoding("o200k_base");
const out = {};
for (const [name, text] of Object.entries(texts)) out[name] = enc.encode(text).length;
enc.free();
process.stdout.write(JSON.stringify(out) + "\n");
