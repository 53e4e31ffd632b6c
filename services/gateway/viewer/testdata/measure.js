// measure is run in the viewer's page by TestViewerRedrawLatency and
// BenchmarkViewerRedraw: another client (a WebSocket of its own, no
// session) moves one entity n times; for each change it takes the time from
// the tools.call result to the paint of the redraw that shows it, both
// with performance.now(), and returns them in milliseconds.
async (documentId, handle, n, mode) => {
  cadViewer.setRedrawMode(mode);
  const ws = new WebSocket(`ws://${location.host}/rpc`);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = reject;
  });
  const pending = new Map();
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    const done = pending.get(m.id);
    if (done) {
      pending.delete(m.id);
      done(m);
    }
  };
  let id = 0;
  const call = (method, params) =>
    new Promise((resolve) => {
      const i = ++id;
      pending.set(i, resolve);
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: i, method, params }));
    });
  const latencies = [];
  for (let k = 0; k < n; k++) {
    const m = await call("tools.call", { document_id: documentId, tool: "entity_move", args: { handle, dx: k % 2 ? -1 : 1, dy: 0.5 } });
    const resultAt = performance.now();
    if (!m.result || !m.result.ok) throw new Error(`entity_move: ${JSON.stringify(m)}`);
    const paintedAt = await cadViewer.whenDrawn(m.result.revision);
    latencies.push(paintedAt - resultAt);
  }
  ws.close();
  return latencies;
}
