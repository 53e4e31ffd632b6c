// A JSON-RPC 2.0 client of the gateway's /rpc over one WebSocket that
// reconnects by itself. It knows nothing of cadbridge's methods: the page
// gives it what to do once connected (onOpen), what to do with server
// requests (onRequest) and notifications (onNotification).

/** RpcError is a JSON-RPC error answer, or "disconnected" (code 0). */
export class RpcError extends Error {
  constructor(code, message, data) {
    super(message);
    this.code = code;
    this.data = data;
  }
}

/** The backoff between reconnection attempts, in milliseconds. */
const backoff = { first: 200, max: 5000 };

/**
 * RpcConnection is one WebSocket to /rpc. It redials whenever the socket
 * closes (after a growing pause, reset by a successful onOpen), until
 * stop() is called.
 */
export class RpcConnection {
  /**
   * @param {string} url ws:// or wss:// address of /rpc
   * @param {object} hooks onOpen(conn) → Promise (runs after each dial),
   *   onRequest(conn, msg), onNotification(conn, method, params),
   *   onState(conn, state, detail) with state connecting|open|closed|stopped,
   *   protocols() → the subprotocols to offer on each dial (none if absent)
   */
  constructor(url, hooks) {
    this.url = url;
    this.hooks = hooks;
    this.nextId = 1;
    this.pending = new Map();
    this.ws = null;
    this.ready = false; // onOpen finished on the current socket
    this.stopped = false;
    this.attempt = 0;
    this.timer = 0;
  }

  /** start dials the first time. */
  start() {
    this.dial();
  }

  /** stop closes the socket and never redials. */
  stop(reason) {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, "stopped");
    this.hooks.onState?.(this, "stopped", reason || "");
  }

  dial() {
    if (this.stopped) return;
    this.ready = false;
    this.hooks.onState?.(this, "connecting", "");
    let ws;
    try {
      const protocols = this.hooks.protocols?.() || [];
      ws = protocols.length ? new WebSocket(this.url, protocols) : new WebSocket(this.url);
    } catch (err) {
      this.scheduleRedial(String(err));
      return;
    }
    this.ws = ws;
    ws.onopen = async () => {
      try {
        await this.hooks.onOpen?.(this);
        if (this.ws !== ws) return;
        this.attempt = 0;
        this.ready = true;
        this.hooks.onState?.(this, "open", "");
      } catch (err) {
        if (this.ws === ws && !this.stopped) {
          console.warn("cadbridge viewer: opening failed", err);
          ws.close(4000, "open failed");
        }
      }
    };
    ws.onmessage = (ev) => this.receive(ev.data);
    ws.onclose = (ev) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.ready = false;
      for (const p of this.pending.values()) p.reject(new RpcError(0, "disconnected"));
      this.pending.clear();
      this.scheduleRedial(`closed (${ev.code}${ev.reason ? ": " + ev.reason : ""})`);
    };
  }

  scheduleRedial(why) {
    if (this.stopped) return;
    const base = Math.min(backoff.max, backoff.first * 2 ** this.attempt);
    const delay = base / 2 + Math.random() * base / 2;
    this.attempt++;
    this.hooks.onState?.(this, "closed", `${why}; retrying in ${(delay / 1000).toFixed(1)} s`);
    this.timer = setTimeout(() => this.dial(), delay);
  }

  /** open reports whether the socket can carry a message now. */
  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  receive(data) {
    let msg;
    try {
      msg = JSON.parse(data);
    } catch {
      console.warn("cadbridge viewer: unparsable frame", data);
      return;
    }
    for (const m of Array.isArray(msg) ? msg : [msg]) this.dispatch(m);
  }

  dispatch(m) {
    if (typeof m.method === "string") {
      if (m.id !== undefined && m.id !== null) {
        this.hooks.onRequest?.(this, m);
      } else {
        this.hooks.onNotification?.(this, m.method, m.params || {});
      }
      return;
    }
    const p = this.pending.get(m.id);
    if (!p) return;
    this.pending.delete(m.id);
    if (m.error) p.reject(new RpcError(m.error.code, m.error.message, m.error.data));
    else p.resolve(m.result);
  }

  /** call sends a request and resolves with its result. */
  call(method, params) {
    if (!this.open) return Promise.reject(new RpcError(0, "disconnected"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, method, params }));
    });
  }

  /** respond answers a server request; it reports whether it was sent. */
  respond(id, result) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, result }));
    return true;
  }

  /** respondError answers a server request with an error. */
  respondError(id, code, message) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify({ jsonrpc: "2.0", id, error: { code, message } }));
    return true;
  }
}
