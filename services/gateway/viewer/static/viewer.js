// The cadbridge viewer: an ordinary JSON-RPC client of the gateway's /rpc.
//
// It keeps its own session (created once, resumed on every reconnect; the
// session id and resume token live in sessionStorage), subscribes it to the
// document it shows and redraws that document from its SVG export on every
// document.changed. With a fragment #session=ses-…&token=rt-… it also
// attaches, on a second WebSocket, to that session (session.attach) and
// answers its approvals and picks beside the session's own client.
//
// Behind a gateway run with --tokens, the fragment's bearer=… is the
// bearer token (a fragment never reaches the server in the URL). A
// browser cannot set the Authorization header of a WebSocket, so both
// sockets offer it as the subprotocol cadbridge.bearer.<base64url(token)>
// beside cadbridge.jsonrpc, the one the gateway answers. The page keeps
// the token in sessionStorage and takes it out of the address bar.
//
// Constrained entities are marked from the export itself (the SVG export
// gives each one data-constraints, the ids of the constraints that name
// it), so a mark is always of the revision its geometry is; hovering one
// shows a card of its constraints, fetched then (constraint_list) and kept
// until the next redraw.
//
// Hooks for tests and scripts: ?document=doc-… opens a document; every
// drawn entity carries data-handle; each open request is an element with
// data-request-id and data-method; the constraint card is
// #constraint-card (data-entity the hovered handle), one
// [data-constraint-id][data-kind] per constraint;
// window.cadViewer exposes the state.

import { RpcConnection, RpcError } from "./rpc.js";
import { Drawing } from "./drawing.js";

/** The server requests the viewer answers. */
const METHODS = ["approval", "pick.point", "pick.entities"];
const VERSION = "1";
const OWN_KEY = "cadbridge.viewer.session";
const BEARER_KEY = "cadbridge.viewer.bearer";
const SUBPROTOCOL = "cadbridge.jsonrpc";
const BEARER_PREFIX = "cadbridge.bearer.";
const METHOD_NOT_FOUND = -32601;
const SESSION_NOT_FOUND = 4001;

const $ = (sel) => document.querySelector(sel);

/** A Surface is one WebSocket with the session it speaks for. */
class Surface {
  constructor(kind, open) {
    this.kind = kind; // "own" or "attached"
    this.sessionId = "";
    this.lastSeen = 0;
    this.gen = 0; // +1 per successful open
    this.queued = new Map(); // request id → answer not yet sent (offline)
    this.conn = new RpcConnection(rpcURL(), {
      onOpen: async (conn) => {
        this.gen++; // requests that arrive from now on are of this connection
        const res = await open(this, conn);
        this.sessionId = res.sessionId;
        this.lastSeen = res.latest_seq || 0;
        app.replayed(this, res.open_requests || []);
        for (const ev of res.events || []) app.onEvent(this, ev);
      },
      onState: (conn, state, detail) => app.onState(this, state, detail),
      protocols: subprotocols,
      onRequest: (conn, msg) => app.onRequest(this, msg),
      onNotification: (conn, method, params) => app.onNotification(this, method, params),
    });
  }
}

/**
 * takeBearer moves a bearer token from the fragment (bearer=…) into
 * sessionStorage, and out of the address bar.
 */
function takeBearer() {
  const frag = new URLSearchParams(location.hash.slice(1));
  const bearer = frag.get("bearer");
  if (bearer === null) return;
  sessionStorage.setItem(BEARER_KEY, bearer);
  frag.delete("bearer");
  const rest = frag.toString();
  history.replaceState(history.state, "", location.pathname + location.search + (rest ? "#" + rest : ""));
}

/** subprotocols are what a socket offers: the bearer token, if any, as a subprotocol. */
function subprotocols() {
  const bearer = sessionStorage.getItem(BEARER_KEY) || "";
  if (!bearer) return [];
  let bin = "";
  for (const b of new TextEncoder().encode(bearer)) bin += String.fromCharCode(b);
  const encoded = btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return [SUBPROTOCOL, BEARER_PREFIX + encoded];
}

function rpcURL() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  return `${scheme}//${location.host}/rpc`;
}

/** openOwn resumes the page's session, or creates one. */
async function openOwn(surface, conn) {
  let saved = null;
  try {
    saved = JSON.parse(sessionStorage.getItem(OWN_KEY) || "null");
  } catch {
    saved = null;
  }
  if (saved) {
    try {
      const res = await conn.call("session.resume", { session_id: saved.session_id, resume_token: saved.resume_token, last_seen: surface.lastSeen });
      return { ...res, sessionId: saved.session_id };
    } catch (err) {
      if (!(err instanceof RpcError) || err.code !== SESSION_NOT_FOUND) throw err;
      sessionStorage.removeItem(OWN_KEY);
    }
  }
  const created = await conn.call("session.create", {
    client: { name: "cadbridge-viewer", version: VERSION },
    capabilities: { server_requests: METHODS },
    approval_policy: "destructive",
  });
  sessionStorage.setItem(OWN_KEY, JSON.stringify({ session_id: created.session_id, resume_token: created.resume_token }));
  surface.lastSeen = 0;
  return { sessionId: created.session_id, latest_seq: created.latest_seq, events: [], open_requests: [] };
}

/** attachTo returns the open function of a surface attached to a session. */
function attachTo(sessionId, token) {
  return async (surface, conn) => {
    try {
      const res = await conn.call("session.attach", {
        session_id: sessionId,
        resume_token: token,
        last_seen: surface.lastSeen,
        capabilities: { server_requests: METHODS },
      });
      return { ...res, sessionId };
    } catch (err) {
      if (err instanceof RpcError && err.code === SESSION_NOT_FOUND) conn.stop("session not found, or not yours");
      throw err;
    }
  };
}

/** The page's state and behaviour. */
const app = {
  own: null,
  attached: null,
  drawing: null,
  docId: "",
  docInfo: null,
  drawnRevision: -1,
  fetching: false,
  again: false,
  waiting: [], // {revision, at}: document.changed not drawn yet
  redraws: [], // what each redraw did and how long it took
  drawnWaiters: [], // {revision, resolve}: promises of cadViewer.whenDrawn
  mode: new URLSearchParams(location.search).get("redraw") || "incremental",
  cards: new Map(), // request id → card
  activeCard: "",
  consCache: new Map(), // handle → Promise of its constraints, at consRevision
  consRevision: -1,
  consDoc: "",
  consAt: null, // where the cursor is in the stage, for the card
  consCard: null, // {handle, ids, revision} of the constraint card shown, or null
  documents: [],

  start() {
    this.drawing = new Drawing($("#canvas"));
    this.docId = new URLSearchParams(location.search).get("document") || "";
    takeBearer();
    this.own = new Surface("own", openOwn);
    this.own.conn.start();
    this.attachFromFragment();
    window.addEventListener("hashchange", () => this.attachFromFragment());
    wireStage(this);
    wireSidebar(this);
    setInterval(() => {
      if (this.own.conn.ready && document.visibilityState === "visible") this.listDocuments();
    }, 5000);
  },

  attachFromFragment() {
    takeBearer();
    const frag = new URLSearchParams(location.hash.slice(1));
    const sessionId = frag.get("session") || "";
    const token = frag.get("token") || "";
    if (this.attached && this.attached.sessionId === sessionId && this.attached.token === token) return;
    if (this.attached) {
      this.attached.conn.stop("detached");
      this.dropCards(this.attached);
      this.attached = null;
    }
    const pill = $("#conn-attached");
    pill.hidden = !sessionId;
    if (!sessionId) return;
    this.attached = new Surface("attached", attachTo(sessionId, token));
    this.attached.sessionId = sessionId;
    this.attached.token = token;
    this.attached.conn.start();
  },

  onState(surface, state, detail) {
    const pill = surface.kind === "own" ? $("#conn-own") : $("#conn-attached");
    pill.dataset.state = state;
    const who = surface.kind === "own" ? "own session" : "attached";
    const id = surface.sessionId ? ` ${surface.sessionId.slice(0, 12)}…` : "";
    pill.textContent = `${who}${id}: ${state === "open" ? "connected" : state === "stopped" && detail ? detail : state}`;
    pill.title = `${surface.sessionId}${detail ? ": " + detail : ""}`;
    if (surface.kind === "own") document.body.dataset.connection = state;
    else document.body.dataset.attached = state;
    if (state === "open") this.afterOpen(surface);
    this.renderCards();
  },

  /** afterOpen runs once a surface's session is open again. */
  async afterOpen(surface) {
    if (surface.kind !== "own") return;
    await this.listDocuments();
    if (this.docId) {
      await this.subscribe();
      this.requestRedraw();
    }
  },

  async listDocuments() {
    const conn = this.own.conn;
    const docs = [];
    let token = "";
    try {
      for (let page = 0; page < 10; page++) {
        const res = await conn.call("document.list", token ? { page_size: 100, page_token: token } : { page_size: 100 });
        docs.push(...(res.documents || []));
        token = res.next_page_token || "";
        if (!token) break;
      }
    } catch (err) {
      return; // offline: the list stays as it was
    }
    this.documents = docs;
    renderDocuments(this);
  },

  async subscribe() {
    try {
      await this.own.conn.call("session.subscribe", { session_id: this.own.sessionId, document_ids: [this.docId] });
    } catch (err) {
      console.warn("cadbridge viewer: subscribe", err);
    }
  },

  /** show makes docId the shown document. */
  async show(docId) {
    if (docId === this.docId) return;
    this.docId = docId;
    this.drawnRevision = -1;
    this.waiting = [];
    this.drawing.prev = null;
    this.drawing.fitted = true;
    const url = new URL(location.href);
    url.searchParams.set("document", docId);
    history.replaceState(null, "", url);
    renderDocuments(this);
    if (this.own.conn.ready) {
      await this.subscribe();
      this.requestRedraw();
    }
  },

  /**
   * requestRedraw draws the shown document from a fresh export; while one
   * is being fetched, further requests coalesce into one more.
   */
  async requestRedraw() {
    if (!this.docId) return;
    if (this.fetching) {
      this.again = true;
      return;
    }
    this.fetching = true;
    try {
      do {
        this.again = false;
        await this.redraw();
      } while (this.again);
    } catch (err) {
      console.warn("cadbridge viewer: redraw", err);
    } finally {
      this.fetching = false;
    }
  },

  async redraw() {
    const conn = this.own.conn.ready ? this.own.conn : this.attached?.conn;
    if (!conn || !conn.open) return;
    const docId = this.docId;
    const t0 = performance.now();
    // document.get first: the export that follows is at least as new as
    // the revision it reports.
    const info = await conn.call("document.get", { document_id: docId });
    const exported = await conn.call("document.export", { document_id: docId, format: "svg" });
    if (docId !== this.docId) return;
    const t1 = performance.now();
    const did = this.drawing.render(exported.content, this.mode);
    this.docInfo = info;
    this.drawnRevision = Math.max(this.drawnRevision, info.revision);
    updateDocumentEntry(this, info);
    renderTitle(this);
    renderLayers(this);
    $("#empty")?.remove();
    document.body.dataset.document = docId;
    document.body.dataset.revision = String(this.drawnRevision);
    const t2 = performance.now();
    // The next frame paints the change (a hidden page has no frames).
    await new Promise((resolve) => {
      requestAnimationFrame(() => resolve());
      setTimeout(resolve, 100);
    });
    const t3 = performance.now();
    const done = this.waiting.filter((w) => w.revision <= this.drawnRevision);
    this.waiting = this.waiting.filter((w) => w.revision > this.drawnRevision);
    this.redraws.push({
      revision: this.drawnRevision,
      mode: did.mode,
      changed: did.changed,
      fetchMs: t1 - t0,
      applyMs: t2 - t1,
      paintMs: t3 - t2,
      paintedAt: t3,
      events: done.map((w) => ({ revision: w.revision, at: w.at, latencyMs: t3 - w.at })),
    });
    if (this.redraws.length > 1000) this.redraws.splice(0, this.redraws.length - 1000);
    for (const w of this.drawnWaiters.filter((w) => w.revision <= this.drawnRevision)) w.resolve(t3);
    this.drawnWaiters = this.drawnWaiters.filter((w) => w.revision > this.drawnRevision);
    this.updateHighlights();
    this.refreshConstraintCard();
  },

  /**
   * constraintsOf resolves to constraint_list's answer for handle: the
   * constraints that name it, and the status and degrees of freedom of
   * its sketch; fetched once per drawn revision.
   */
  constraintsOf(handle) {
    if (this.consRevision !== this.drawnRevision || this.consDoc !== this.docId) {
      this.consCache.clear();
      this.consRevision = this.drawnRevision;
      this.consDoc = this.docId;
    }
    let p = this.consCache.get(handle);
    if (!p) {
      const conn = this.own.conn.ready ? this.own.conn : this.attached?.conn;
      p = (conn ? conn.call("tools.call", { document_id: this.docId, tool: "constraint_list", args: { handle } }) : Promise.reject(new RpcError(0, "disconnected"))).then((res) => {
        if (!res.ok) throw new Error(res.error?.message || "constraint_list failed");
        return { constraints: [], ...res.result };
      });
      p.catch(() => this.consCache.delete(handle)); // a failure is not kept
      this.consCache.set(handle, p);
    }
    return p;
  },

  /**
   * showConstraints shows the card of the hovered entity's constraints
   * beside the cursor at (x, y) in the stage, below the tooltip (when x is
   * undefined, where it is), or hides it when e is null or unconstrained;
   * the other entities they name are marked related.
   */
  showConstraints(e, x, y) {
    const card = $("#constraint-card");
    const ids = e?.el?.dataset.constraints || "";
    if (!ids) {
      this.consCard = null;
      card.hidden = true;
      this.drawing.setRelated([]);
      return;
    }
    if (x !== undefined) this.consAt = { x, y };
    const same = this.consCard && this.consCard.handle === e.handle && this.consCard.ids === ids && this.consCard.revision === this.drawnRevision;
    if (!same) {
      const shown = { handle: e.handle, ids, revision: this.drawnRevision };
      this.consCard = shown;
      card.dataset.entity = e.handle;
      card.dataset.state = "loading";
      const head = document.createElement("h4");
      const n = ids.split(" ").length;
      head.textContent = `${e.handle}: ${n} constraint${n === 1 ? "" : "s"}`;
      card.replaceChildren(head);
      this.constraintsOf(e.handle).then(
        (listed) => {
          if (this.consCard !== shown) return;
          renderConstraints(card, e.handle, listed);
          card.dataset.state = "ready";
          this.drawing.setRelated(relatedHandles(e.handle, listed.constraints));
          placeCard(card, this.consAt);
        },
        (err) => {
          if (this.consCard !== shown) return;
          card.dataset.state = "error";
          card.append(`could not list them: ${err.message}`);
          placeCard(card, this.consAt);
        },
      );
    }
    card.hidden = false;
    placeCard(card, this.consAt);
  },

  /** refreshConstraintCard brings a shown card to the drawing just redrawn. */
  refreshConstraintCard() {
    if (!this.consCard) return;
    const el = this.drawing.live.get(this.consCard.handle);
    this.showConstraints(el ? { handle: this.consCard.handle, el } : null);
  },

  onNotification(surface, method, params) {
    switch (method) {
      case "event":
        this.onEvent(surface, params);
        break;
      case "request.cancel":
        this.removeCard(params.id, params.reason);
        break;
    }
  },

  onEvent(surface, ev) {
    if (typeof ev.seq === "number" && ev.seq > surface.lastSeen) surface.lastSeen = ev.seq;
    const p = ev.payload || {};
    switch (ev.type) {
      case "document.changed":
        if (!this.docId && surface.kind === "attached") {
          this.show(p.document_id); // follow the agent's work
          return;
        }
        if (p.document_id === this.docId && p.revision > this.drawnRevision) {
          this.waiting.push({ revision: p.revision, at: performance.now() });
          this.requestRedraw();
        }
        break;
      case "batch.progress":
        setActivity(`batch ${p.step}/${p.total}`);
        break;
      case "operation.finished":
        setActivity(`${p.operation_id}: ${p.status}`);
        break;
    }
  },

  onRequest(surface, msg) {
    if (!METHODS.includes(msg.method)) {
      surface.conn.respondError(msg.id, METHOD_NOT_FOUND, `the viewer does not implement ${msg.method}`);
      return;
    }
    this.addCard(surface, msg.id, msg.method, msg.params || {});
  },

  /**
   * replayed takes the open requests a resume or attach listed: answers
   * given while offline are sent now, each other request shows once, and a
   * card the list no longer names (withdrawn while offline) goes.
   */
  replayed(surface, open) {
    const ids = new Set(open.map((r) => r.id));
    for (const [id, card] of this.cards) {
      if (card.surface === surface && card.gen < surface.gen && !ids.has(id)) this.removeCard(id, "gone");
    }
    for (const r of open) {
      if (surface.queued.has(r.id)) {
        surface.conn.respond(r.id, surface.queued.get(r.id));
        continue;
      }
      this.addCard(surface, r.id, r.method, r.params || {});
    }
    surface.queued.clear();
  },

  addCard(surface, id, method, params) {
    const known = this.cards.get(id);
    if (known) {
      known.gen = surface.gen; // still open: shown once
      return;
    }
    const card = { id, method, params, surface, gen: surface.gen, picked: [] };
    card.el = buildCard(this, card);
    this.cards.set(id, card);
    $("#cards").append(card.el);
    this.renderCards();
  },

  removeCard(id, reason) {
    const card = this.cards.get(id);
    if (!card) return;
    card.el.remove();
    this.cards.delete(id);
    if (this.activeCard === id) this.activeCard = "";
    if (reason && reason !== "answered") console.info(`cadbridge viewer: request ${id} withdrawn (${reason})`);
    this.renderCards();
  },

  dropCards(surface) {
    for (const [id, card] of this.cards) if (card.surface === surface) this.removeCard(id, "detached");
  },

  /** answer sends a card's answer (or keeps it for the next resume). */
  answer(card, result) {
    if (!card.surface.conn.respond(card.id, result)) card.surface.queued.set(card.id, result);
    this.removeCard(card.id, "answered");
  },

  /** activePick is the pick card clicks in the drawing answer. */
  activePick() {
    const picks = [...this.cards.values()].filter((c) => c.method !== "approval");
    return picks.find((c) => c.id === this.activeCard) || picks[0] || null;
  },

  renderCards() {
    $("#no-requests").hidden = this.cards.size > 0;
    const active = this.activePick();
    for (const card of this.cards.values()) {
      card.el.classList.toggle("active", card === active);
      const offline = !card.surface.conn.open;
      for (const b of card.el.querySelectorAll("button")) b.title = offline ? "offline: the answer is sent when the page reconnects" : "";
    }
    $("#canvas").classList.toggle("picking", !!active);
    const prompt = $("#prompt");
    prompt.hidden = !active;
    if (active) prompt.textContent = `${active.method === "pick.point" ? "Click a point" : "Click entities"}: ${active.params.prompt || ""}`;
    this.updateHighlights();
  },

  updateHighlights() {
    const handles = [];
    for (const c of this.cards.values()) {
      if (c.method === "approval") handles.push(...(c.params.affected?.handles || []));
    }
    this.drawing.setHighlights(handles);
    const active = this.activePick();
    this.drawing.setSelected(active && active.method === "pick.entities" ? active.picked : []);
  },

  /** click in the drawing: answers the active pick. */
  clickAt(clientX, clientY) {
    const card = this.activePick();
    if (!card || !this.drawing.svg) return;
    if (card.method === "pick.point") {
      const s = this.drawing.snap(clientX, clientY);
      const p = s || this.drawing.toDocument(clientX, clientY);
      this.answer(card, { x: p.x, y: p.y });
      return;
    }
    const filter = card.params.filter || [];
    const e = this.drawing.nearest(clientX, clientY, (e) => filter.length === 0 || filter.includes(e.type));
    if (!e) return;
    const i = card.picked.indexOf(e.handle);
    if (i >= 0) card.picked.splice(i, 1);
    else {
      card.picked.push(e.handle);
      const max = card.params.max || 0;
      if (max > 0 && card.picked.length > max) card.picked.shift();
    }
    renderPicked(card);
    this.updateHighlights();
  },
};

// ---- rendering ----

function renderTitle(app) {
  const info = app.docInfo;
  $("#doc-title").textContent = info ? `${info.name || "(unnamed)"} · ${info.document_id}` : "no document";
  $("#doc-revision").textContent = info ? `revision ${app.drawnRevision} · ${info.entity_count} entities · ${info.units}` : "";
}

/** updateDocumentEntry puts a document's new info into the list. */
function updateDocumentEntry(app, info) {
  const i = app.documents.findIndex((d) => d.document_id === info.document_id);
  if (i < 0) {
    app.documents.push(info);
    renderDocuments(app);
    return;
  }
  app.documents[i] = info;
  const meta = $(`#document-list li[data-document-id="${CSS.escape(info.document_id)}"] .meta`);
  if (meta) meta.textContent = documentMeta(info);
}

function documentMeta(d) {
  return `${d.document_id} · rev ${d.revision} · ${d.entity_count} entities`;
}

function renderDocuments(app) {
  const list = $("#document-list");
  list.replaceChildren();
  for (const d of app.documents) {
    const li = document.createElement("li");
    li.dataset.documentId = d.document_id;
    li.setAttribute("aria-current", String(d.document_id === app.docId));
    const name = document.createElement("span");
    name.textContent = d.name || "(unnamed)";
    const meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = documentMeta(d);
    li.append(name, meta);
    li.addEventListener("click", () => app.show(d.document_id));
    list.append(li);
  }
}

function renderLayers(app) {
  const list = $("#layer-list");
  const drawn = new Set(app.drawing.layerNames());
  list.replaceChildren();
  for (const l of app.docInfo?.layers || []) {
    const li = document.createElement("li");
    li.dataset.layer = l.name;
    const box = document.createElement("input");
    box.type = "checkbox";
    const shownInDocument = l.on && !l.frozen;
    box.checked = shownInDocument && !app.drawing.hiddenLayers.has(l.name);
    box.disabled = !shownInDocument;
    box.title = shownInDocument ? "show or hide in this viewer" : "off or frozen in the document";
    box.addEventListener("change", () => app.drawing.setLayerHidden(l.name, !box.checked));
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    const g = app.drawing.svg?.querySelector(`g[data-layer="${CSS.escape(l.name)}"]`);
    swatch.style.background = g?.getAttribute("stroke") || "transparent";
    const name = document.createElement("span");
    name.textContent = l.name;
    const count = document.createElement("span");
    count.className = "count";
    count.textContent = String(l.entity_count);
    li.classList.toggle("off", !shownInDocument || !drawn.has(l.name));
    li.append(box, swatch, name, count);
    list.append(li);
  }
}

function buildCard(app, card) {
  const tpl = $(`#card-${card.method.replace(".", "-")}`);
  const el = tpl.content.firstElementChild.cloneNode(true);
  el.dataset.requestId = card.id;
  el.dataset.method = card.method;
  el.dataset.surface = card.surface.kind;
  const p = card.params;
  const origin = el.querySelector(".origin");
  origin.textContent = `${card.surface.kind === "own" ? "this page's session" : "attached session"} ${p.session_id || ""}`;
  el.addEventListener("click", () => {
    if (card.method !== "approval") {
      app.activeCard = card.id;
      app.renderCards();
    }
  });
  switch (card.method) {
    case "approval": {
      el.querySelector(".tool").textContent = p.tool || "";
      el.querySelector(".summary").textContent = p.summary || "";
      const affected = el.querySelector(".affected");
      const handles = p.affected?.handles || [];
      const count = p.affected?.count ?? handles.length;
      affected.append(`${count} affected${handles.length ? ": " : ""}`);
      for (const h of handles) {
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.textContent = h;
        chip.addEventListener("mouseenter", () => app.drawing.setHovered(h));
        chip.addEventListener("mouseleave", () => app.drawing.setHovered(null));
        affected.append(chip);
      }
      if (handles.length < count) affected.append(` (and ${count - handles.length} more)`);
      for (const b of el.querySelectorAll("[data-decision]")) {
        b.addEventListener("click", (ev) => {
          ev.stopPropagation();
          app.answer(card, { decision: b.dataset.decision });
        });
      }
      break;
    }
    case "pick.point": {
      el.querySelector(".prompt").textContent = p.prompt || "";
      if (p.base) el.querySelector(".prompt").append(` (from ${p.base.x}, ${p.base.y})`);
      el.querySelector("form.typed").addEventListener("submit", (ev) => {
        ev.preventDefault();
        const f = ev.target;
        const x = Number(f.x.value);
        const y = Number(f.y.value);
        if (f.x.value.trim() === "" || f.y.value.trim() === "" || !Number.isFinite(x) || !Number.isFinite(y)) return;
        app.answer(card, { x, y });
      });
      break;
    }
    case "pick.entities": {
      let prompt = p.prompt || "";
      if (p.filter?.length) prompt += ` (${p.filter.join(", ")} only)`;
      if (p.max) prompt += ` (at most ${p.max})`;
      el.querySelector(".prompt").textContent = prompt;
      el.querySelector('[data-action="confirm"]').addEventListener("click", (ev) => {
        ev.stopPropagation();
        app.answer(card, { handles: [...card.picked] });
      });
      el.querySelector('[data-action="clear"]').addEventListener("click", (ev) => {
        ev.stopPropagation();
        card.picked = [];
        renderPicked(card);
        app.updateHighlights();
      });
      break;
    }
  }
  return el;
}

/**
 * renderConstraints fills the constraint card of handle with what
 * constraint_list answered: {constraints, status?, dof?}.
 */
function renderConstraints(card, handle, listed) {
  const list = listed.constraints;
  if (listed.status) {
    const state = document.createElement("p");
    state.className = "sketch";
    state.dataset.status = listed.status;
    state.textContent = `sketch ${listed.status.replace("_", "-")}${listed.dof ? `, ${listed.dof} degree${listed.dof === 1 ? "" : "s"} of freedom left` : ""}`;
    card.append(state);
  }
  const ul = document.createElement("ul");
  for (const c of list) {
    const li = document.createElement("li");
    li.dataset.constraintId = String(c.constraint_id);
    li.dataset.kind = c.kind;
    const id = document.createElement("span");
    id.className = "id";
    id.textContent = `#${c.constraint_id}`;
    const kind = document.createElement("strong");
    kind.textContent = c.kind;
    li.append(id, " ", kind);
    if (c.value !== undefined) li.append(` = ${fmtValue(c.value)}${c.kind === "angle" ? "°" : ""}`);
    for (const r of c.refs || []) {
      const ref = document.createElement("span");
      ref.className = r.handle === handle ? "ref" : "ref other";
      ref.textContent = r.point ? `${r.handle}:${r.point}` : r.handle;
      li.append(" ", ref);
    }
    ul.append(li);
  }
  if (list.length === 0) ul.append("none any more (the drawing is about to change)");
  card.append(ul);
}

/** relatedHandles are the entities other than handle that list names. */
function relatedHandles(handle, list) {
  const out = new Set();
  for (const c of list) for (const r of c.refs || []) if (r.handle !== handle) out.add(r.handle);
  return [...out];
}

/**
 * placeCard puts the constraint card below the tooltip of the cursor at
 * at ({x, y} in the stage), or above the cursor, or left of it, where the
 * stage has room.
 */
function placeCard(card, at) {
  if (!at) return;
  const stage = $("#stage").getBoundingClientRect();
  const tip = $("#tooltip");
  const w = card.offsetWidth;
  const h = card.offsetHeight;
  let left = at.x + 14;
  let top = at.y + 14 + (tip.hidden ? 0 : tip.offsetHeight + 4);
  if (left + w > stage.width) left = Math.max(0, at.x - 14 - w);
  if (top + h > stage.height) top = Math.max(0, at.y - 10 - h);
  card.style.left = `${left}px`;
  card.style.top = `${top}px`;
}

/** fmtValue is a constraint's value as people read it: at most 6 decimals. */
function fmtValue(v) {
  return String(Number(v.toFixed(6)));
}

function renderPicked(card) {
  card.el.querySelector(".picked").textContent = card.picked.length ? `picked: ${card.picked.join(", ")}` : "none picked";
}

let activityTimer = 0;
function setActivity(text) {
  const el = $("#doc-revision");
  el.dataset.activity = text;
  clearTimeout(activityTimer);
  el.title = text;
  activityTimer = setTimeout(() => delete el.dataset.activity, 3000);
}

// ---- input ----

function wireStage(app) {
  const canvas = $("#canvas");
  const tooltip = $("#tooltip");
  const coords = $("#coords");
  const marker = document.createElement("div");
  marker.id = "marker";
  marker.hidden = true;
  marker.style.cssText = "position:absolute;width:10px;height:10px;border:2px solid #bf8700;pointer-events:none;transform:translate(-50%,-50%)";
  $("#stage").append(marker);
  let down = null;
  let hoverFrame = 0;
  let last = null;
  const stageRect = () => $("#stage").getBoundingClientRect();
  const hover = () => {
    hoverFrame = 0;
    if (!last || !app.drawing.svg) return;
    const { clientX: x, clientY: y } = last;
    const d = app.drawing.toDocument(x, y);
    coords.textContent = `x ${fmt(d.x)}  y ${fmt(d.y)}`;
    const r = stageRect();
    const e = app.drawing.nearest(x, y);
    app.drawing.setHovered(e ? e.handle : null);
    if (e) {
      tooltip.hidden = false;
      tooltip.textContent = `${e.handle} · ${e.type} · layer ${e.layer}`;
      tooltip.style.left = `${x - r.left + 14}px`;
      tooltip.style.top = `${y - r.top + 14}px`;
      app.showConstraints(e, x - r.left, y - r.top);
    } else {
      tooltip.hidden = true;
      app.showConstraints(null);
    }
    const pick = app.activePick();
    const s = pick && pick.method === "pick.point" ? app.drawing.snap(x, y) : null;
    marker.hidden = !s;
    if (s) {
      const c = app.drawing.toClient(s.x, s.y);
      marker.style.left = `${c.x - r.left}px`;
      marker.style.top = `${c.y - r.top}px`;
      marker.title = s.kind;
    }
  };
  canvas.addEventListener("pointerdown", (ev) => {
    if (ev.button !== 0 && ev.button !== 1) return;
    down = { x: ev.clientX, y: ev.clientY, lastX: ev.clientX, lastY: ev.clientY, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", (ev) => {
    last = ev;
    if (down) {
      if (!down.moved && Math.hypot(ev.clientX - down.x, ev.clientY - down.y) > 4) {
        down.moved = true;
        canvas.classList.add("panning");
      }
      if (down.moved) {
        app.drawing.pan(ev.clientX - down.lastX, ev.clientY - down.lastY);
        down.lastX = ev.clientX;
        down.lastY = ev.clientY;
        return;
      }
    }
    if (!hoverFrame) hoverFrame = requestAnimationFrame(hover);
  });
  canvas.addEventListener("pointerup", (ev) => {
    if (!down) return;
    const wasClick = !down.moved;
    down = null;
    canvas.classList.remove("panning");
    if (wasClick && ev.button === 0) {
      marker.hidden = true;
      app.clickAt(ev.clientX, ev.clientY);
    }
  });
  canvas.addEventListener("pointerleave", () => {
    tooltip.hidden = true;
    marker.hidden = true;
    app.showConstraints(null);
    app.drawing.setHovered(null);
  });
  canvas.addEventListener(
    "wheel",
    (ev) => {
      ev.preventDefault();
      app.drawing.zoom(Math.exp(-ev.deltaY * 0.0015), ev.clientX, ev.clientY);
    },
    { passive: false },
  );
  $("#fit").addEventListener("click", () => app.drawing.fit());
  $("#zoom-in").addEventListener("click", () => app.drawing.zoom(1.25));
  $("#zoom-out").addEventListener("click", () => app.drawing.zoom(0.8));
  window.addEventListener("keydown", (ev) => {
    if (ev.target instanceof HTMLInputElement) return;
    if (ev.key === "f") app.drawing.fit();
    else if (ev.key === "+" || ev.key === "=") app.drawing.zoom(1.25);
    else if (ev.key === "-") app.drawing.zoom(0.8);
  });
}

function wireSidebar(app) {
  $("#refresh-documents").addEventListener("click", () => app.listDocuments());
  const form = $("#attach-form");
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const session = form.session.value.trim();
    const token = form.token.value.trim();
    if (!session || !token) return;
    location.hash = new URLSearchParams({ session, token }).toString();
  });
}

function fmt(v) {
  return Math.abs(v) >= 1000 ? v.toFixed(1) : v.toFixed(3);
}

// ---- hooks ----

/** window.cadViewer is the page's state, for tests and scripts. */
window.cadViewer = {
  state() {
    return {
      own: { state: document.body.dataset.connection, session_id: app.own?.sessionId || "" },
      attached: app.attached ? { state: document.body.dataset.attached || "", session_id: app.attached.sessionId } : null,
      document_id: app.docId,
      drawn_revision: app.drawnRevision,
      entities: app.drawing?.live.size || 0,
      requests: [...app.cards.values()].map((c) => ({ id: c.id, method: c.method, surface: c.surface.kind })),
      mode: app.mode,
    };
  },
  /** unitsPerPixel is the size of a screen pixel in document units. */
  unitsPerPixel() {
    return app.drawing.unitsPerPixel();
  },
  /** toClient is a document point in client (CSS pixel) coordinates. */
  toClient(x, y) {
    return app.drawing.toClient(x, y);
  },
  /** redraws lists what each redraw did and when it painted. */
  get redraws() {
    return app.redraws;
  },
  /**
   * whenDrawn resolves, with the performance.now() of the paint, once the
   * shown document is drawn at revision or later.
   */
  whenDrawn(revision) {
    if (app.drawnRevision >= revision) {
      const r = app.redraws.find((r) => r.revision >= revision);
      return Promise.resolve(r ? r.paintedAt : performance.now());
    }
    return new Promise((resolve) => app.drawnWaiters.push({ revision, resolve }));
  },
  /** setRedrawMode chooses "incremental" or "full" redraws. */
  setRedrawMode(mode) {
    app.mode = mode;
  },
  fit() {
    app.drawing.fit();
  },
};

app.start();
