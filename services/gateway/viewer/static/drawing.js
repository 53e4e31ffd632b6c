// The drawing: a document's SVG export shown inline, with pan, zoom and
// fit, layers shown and hidden, highlights, and the geometry of every
// entity (read back from the SVG) for hovering, snapping and picking.
//
// The export draws world coordinates with y flipped: a point (x, y) of the
// document is (x, -y) in the SVG's user space.

/** How near (in screen pixels) the cursor must be to hover or snap. */
export const HIT_PX = 8;
export const SNAP_PX = 12;

/**
 * Drawing owns the <svg> inside a container element.
 */
export class Drawing {
  constructor(container) {
    this.container = container;
    this.svg = null; // the live <svg>
    this.prev = null; // the previous export, parsed (never in the page)
    this.live = new Map(); // handle → live element
    this.extent = null; // the export's viewBox {x, y, w, h}
    this.view = null; // the shown viewBox
    this.fitted = true; // follow the extent until the user pans or zooms
    this.hiddenLayers = new Set();
    this.highlights = new Set();
    this.selected = new Set();
    this.related = new Set(); // the other entities the hovered one's constraints name
    this.hovered = null;
    this.index = null; // entity geometry, built on demand
  }

  /**
   * render shows an export. mode "incremental" re-parses and replaces only
   * the entities whose element changed since the previous export (the
   * export writes each entity's element on a line of its own, so a change
   * is found by comparing lines, by data-handle); "full" parses the whole
   * export and replaces the drawing. It returns what it did: {mode,
   * changed}, changed being the number of entity elements replaced, added
   * or removed.
   */
  render(text, mode) {
    const next = splitExport(text);
    let changed;
    if (mode === "full" || !this.svg || !this.prev || !next) {
      changed = this.replace(text);
      mode = "full";
    } else {
      changed = this.patch(next);
    }
    this.prev = next;
    const vb = this.svg.getAttribute("data-extent").trim().split(/[\s,]+/).map(Number);
    this.extent = { x: vb[0], y: vb[1], w: vb[2], h: vb[3] };
    this.index = null;
    if (this.fitted || !this.view) this.view = this.fitView();
    this.applyView();
    this.decorate();
    return { mode, changed };
  }

  /** replace parses the whole export and puts it in place of the drawing. */
  replace(text) {
    const svg = parseSVG(text);
    if (!svg) throw new Error("the export is not SVG");
    adoptRoot(svg);
    if (this.svg) this.svg.replaceWith(svg);
    else this.container.append(svg);
    this.svg = svg;
    this.live = new Map();
    for (const el of svg.querySelectorAll("[data-handle]")) this.live.set(el.dataset.handle, el);
    return this.live.size;
  }

  /** patch brings the live drawing to the export next, line by line. */
  patch(next) {
    const prev = this.prev;
    if (next.head !== prev.head) {
      // The extents, the stroke width or the name changed: copy the
      // attributes of the outer elements.
      const root = parseSVG(next.head + "</g></svg>");
      adoptRoot(root);
      syncAttributes(this.svg, root, ["viewBox", "id", "preserveAspectRatio"]);
      for (const sel of [":scope > rect", ":scope > g"]) syncAttributes(this.svg.querySelector(sel), root.querySelector(sel), []);
      const title = this.svg.querySelector(":scope > title");
      const newTitle = root.querySelector(":scope > title");
      if (title && newTitle && title.textContent !== newTitle.textContent) title.textContent = newTitle.textContent;
    }
    const top = this.svg.querySelector(":scope > g");
    // Layer groups, in the new order; a group whose line changed takes the
    // new attributes.
    const liveGroups = new Map();
    for (const g of top.querySelectorAll(":scope > g[data-layer]")) liveGroups.set(g.getAttribute("data-layer"), g);
    const prevLayerLines = new Map(prev.layers.map((l) => [l.name, l.line]));
    const groups = [];
    let before = top.firstElementChild;
    for (const l of next.layers) {
      let g = liveGroups.get(l.name);
      if (!g || prevLayerLines.get(l.name) !== l.line) {
        const parsed = parseSVG(`<svg xmlns="http://www.w3.org/2000/svg">${l.line}</g></svg>`).firstElementChild;
        if (g) syncAttributes(g, parsed, []);
        else g = document.adoptNode(parsed);
      }
      groups.push(g);
      if (g !== before) top.insertBefore(g, before);
      before = g.nextElementSibling;
    }
    const keep = new Set(groups);
    for (const g of liveGroups.values()) if (!keep.has(g)) g.remove();
    // Entities: drop the gone first (so that nothing after them moves),
    // parse the changed and new ones in one go, put each in place.
    let changed = 0;
    const wanted = new Set(next.entities.map((e) => e.handle));
    for (const [h, el] of this.live) {
      if (!wanted.has(h)) {
        el.remove();
        this.live.delete(h);
        changed++;
      }
    }
    const stale = next.entities.filter((e) => prev.lines.get(e.handle) !== e.line || !this.live.has(e.handle));
    const fresh = new Map();
    if (stale.length > 0) {
      const parsed = parseSVG(`<svg xmlns="http://www.w3.org/2000/svg">${stale.map((e) => e.line).join("")}</svg>`);
      for (const el of [...parsed.children]) fresh.set(el.getAttribute("data-handle"), document.adoptNode(el));
    }
    let group = null;
    let cursor = null; // the live element the next one goes after
    for (const e of next.entities) {
      const g = groups[e.layer];
      if (g !== group) {
        group = g;
        cursor = null;
      }
      let el = this.live.get(e.handle);
      const f = fresh.get(e.handle);
      if (f) {
        if (el) el.replaceWith(f);
        el = f;
        this.live.set(e.handle, el);
        changed++;
      }
      if (el.parentNode !== g || el.previousElementSibling !== cursor) {
        g.insertBefore(el, cursor ? cursor.nextElementSibling : g.firstElementChild);
      }
      cursor = el;
    }
    return changed;
  }

  /** fitView is the extent with a little room around it. */
  fitView() {
    const e = this.extent;
    const pad = Math.max(e.w, e.h) * 0.03;
    return { x: e.x - pad, y: e.y - pad, w: e.w + 2 * pad, h: e.h + 2 * pad };
  }

  /** fit shows the whole drawing and follows it as it grows. */
  fit() {
    if (!this.extent) return;
    this.fitted = true;
    this.view = this.fitView();
    this.applyView();
  }

  applyView() {
    if (!this.svg || !this.view) return;
    const v = this.view;
    this.svg.setAttribute("viewBox", `${v.x} ${v.y} ${v.w} ${v.h}`);
  }

  /** zoom scales the view by factor about a client point (default the centre). */
  zoom(factor, clientX, clientY) {
    if (!this.svg || !this.view) return;
    const r = this.svg.getBoundingClientRect();
    const c = this.toUser(clientX ?? r.left + r.width / 2, clientY ?? r.top + r.height / 2);
    const v = this.view;
    this.view = { x: c.x - (c.x - v.x) / factor, y: c.y - (c.y - v.y) / factor, w: v.w / factor, h: v.h / factor };
    this.fitted = false;
    this.applyView();
  }

  /** pan moves the view by a distance in client pixels. */
  pan(dxPx, dyPx) {
    if (!this.svg || !this.view) return;
    const s = this.unitsPerPixel();
    this.view = { ...this.view, x: this.view.x - dxPx * s, y: this.view.y - dyPx * s };
    this.fitted = false;
    this.applyView();
  }

  /** unitsPerPixel is the size of one screen pixel in drawing units. */
  unitsPerPixel() {
    const m = this.svg.getScreenCTM();
    return m ? 1 / Math.hypot(m.a, m.b) : 1;
  }

  /** toUser is a client point in the SVG's user space. */
  toUser(clientX, clientY) {
    const p = this.svg.createSVGPoint();
    p.x = clientX;
    p.y = clientY;
    return p.matrixTransform(this.svg.getScreenCTM().inverse());
  }

  /** toDocument is a client point in document coordinates. */
  toDocument(clientX, clientY) {
    const u = this.toUser(clientX, clientY);
    return { x: u.x, y: -u.y };
  }

  /** toClient is a document point in client coordinates. */
  toClient(x, y) {
    const p = this.svg.createSVGPoint();
    p.x = x;
    p.y = -y;
    const c = p.matrixTransform(this.svg.getScreenCTM());
    return { x: c.x, y: c.y };
  }

  /** layerGroups lists the drawn layers by name. */
  layerNames() {
    if (!this.svg) return [];
    return [...this.svg.querySelectorAll("g[data-layer]")].map((g) => g.getAttribute("data-layer"));
  }

  setLayerHidden(name, hidden) {
    if (hidden) this.hiddenLayers.add(name);
    else this.hiddenLayers.delete(name);
    this.decorate();
  }

  setHighlights(handles) {
    this.highlights = new Set(handles);
    this.decorate();
  }

  setSelected(handles) {
    this.selected = new Set(handles);
    this.decorate();
  }

  setRelated(handles) {
    const next = new Set(handles);
    if (next.size === this.related.size && [...next].every((h) => this.related.has(h))) return;
    this.related = next;
    this.decorate();
  }

  setHovered(handle) {
    if (this.hovered === handle) return;
    const old = this.hovered && this.live.get(this.hovered);
    if (old) old.classList.remove("hover");
    this.hovered = handle;
    const el = handle && this.live.get(handle);
    if (el) el.classList.add("hover");
  }

  /** decorate puts the viewer's classes back on the live drawing. */
  decorate() {
    if (!this.svg) return;
    for (const g of this.svg.querySelectorAll("g[data-layer]")) {
      g.classList.toggle("hidden-layer", this.hiddenLayers.has(g.getAttribute("data-layer")));
    }
    for (const el of this.svg.querySelectorAll(".highlight, .selected, .related")) {
      el.classList.remove("highlight", "selected", "related");
    }
    for (const h of this.related) this.live.get(h)?.classList.add("related");
    for (const h of this.highlights) this.live.get(h)?.classList.add("highlight");
    for (const h of this.selected) this.live.get(h)?.classList.add("selected");
    const hov = this.hovered && this.live.get(this.hovered);
    if (hov) hov.classList.add("hover");
  }

  /** entities is the geometry of every shown entity (built on demand). */
  entities() {
    if (!this.index) {
      this.index = [];
      for (const [handle, el] of this.live) {
        const e = geometryOf(el);
        if (e) this.index.push({ handle, type: el.dataset.type, layer: el.dataset.layer, el, ...e });
      }
    }
    return this.index.filter((e) => !this.hiddenLayers.has(e.layer));
  }

  /**
   * nearest is the entity nearest a client point within HIT_PX, or null;
   * accept filters the candidates.
   */
  nearest(clientX, clientY, accept) {
    if (!this.svg) return null;
    const u = this.toUser(clientX, clientY);
    const tol = HIT_PX * this.unitsPerPixel();
    let best = null;
    let bestD = tol;
    for (const e of this.entities()) {
      if (accept && !accept(e)) continue;
      const d = e.distance(u);
      if (d <= bestD) {
        best = e;
        bestD = d;
      }
    }
    return best;
  }

  /**
   * snap is the snap point nearest a client point within SNAP_PX, in
   * document coordinates ({x, y, kind, handle}), or null.
   */
  snap(clientX, clientY) {
    if (!this.svg) return null;
    const u = this.toUser(clientX, clientY);
    const tol = SNAP_PX * this.unitsPerPixel();
    let best = null;
    let bestD = tol;
    for (const e of this.entities()) {
      for (const s of e.snaps) {
        const d = Math.hypot(s.x - u.x, s.y - u.y);
        if (d <= bestD) {
          best = { x: s.x, y: s.y === 0 ? 0 : -s.y, kind: s.kind, handle: e.handle };
          bestD = d;
        }
      }
    }
    return best;
  }
}

/**
 * parseSVG parses SVG markup with the HTML parser, which is several times
 * faster than DOMParser's XML parser on a large export, into an inert
 * template; it returns the <svg> element, or null.
 */
function parseSVG(markup) {
  const tpl = document.createElement("template");
  tpl.innerHTML = markup;
  return tpl.content.querySelector("svg");
}

/**
 * adoptRoot makes a parsed export's <svg> the viewer's: the viewer sizes it
 * and owns its viewBox (the export's is kept as data-extent).
 */
function adoptRoot(svg) {
  svg.setAttribute("data-extent", svg.getAttribute("viewBox") || "0 0 100 100");
  svg.removeAttribute("width");
  svg.removeAttribute("height");
  svg.setAttribute("id", "drawing");
  svg.setAttribute("preserveAspectRatio", "xMidYMid meet");
}

const HANDLE_ATTR = / data-handle="([^"]*)"/;
const LAYER_GROUP = /^<g [^>]*data-layer="([^"]*)"[^>]*>$/;

/**
 * splitExport reads an export as svg.Write lays it out: a head (up to the
 * outer group), one line per layer group opening, one line per entity
 * element, closing lines. It returns {head, layers: [{name, line}],
 * entities: [{handle, line, layer}], lines: handle → line}, or null when
 * the text is laid out otherwise (then the drawing is replaced whole).
 */
function splitExport(text) {
  const head = [];
  const layers = [];
  const entities = [];
  const lines = new Map();
  let layer = -1; // the open layer group
  let closed = false; // past the layer groups
  for (const line of text.split("\n")) {
    if (line === "") continue;
    if (closed) {
      if (line !== "</g>" && line !== "</svg>") return null;
      continue;
    }
    if (layer >= 0) {
      if (line === "</g>") {
        layer = -1;
        continue;
      }
      const m = HANDLE_ATTR.exec(line);
      if (!m || line[0] !== "<" || line.startsWith("<g") || lines.has(m[1])) return null;
      entities.push({ handle: m[1], line, layer: layers.length - 1 });
      lines.set(m[1], line);
      continue;
    }
    const g = LAYER_GROUP.exec(line);
    if (g) {
      layers.push({ name: unescapeXML(g[1]), line });
      layer = layers.length - 1;
      continue;
    }
    if (layers.length > 0) {
      if (line !== "</g>" && line !== "</svg>") return null;
      closed = true;
      continue;
    }
    head.push(line);
  }
  if (!head.some((l) => l.startsWith("<svg"))) return null;
  return { head: head.join("\n"), layers, entities, lines };
}

/** unescapeXML decodes the character references xml.EscapeText writes. */
function unescapeXML(s) {
  const named = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" };
  return s.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);/g, (_, ref) => {
    if (ref[0] !== "#") return named[ref];
    return String.fromCodePoint(ref[1] === "x" ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10));
  });
}

/** syncAttributes makes el's attributes those of src, but for skip. */
function syncAttributes(el, src, skip) {
  if (!el || !src) return;
  for (const a of [...el.attributes]) {
    if (!skip.includes(a.name) && !src.hasAttribute(a.name)) el.removeAttribute(a.name);
  }
  for (const a of src.attributes) {
    if (!skip.includes(a.name) && el.getAttribute(a.name) !== a.value) el.setAttribute(a.name, a.value);
  }
}

// ---- geometry read back from the SVG, in user space ----

const num = (el, name) => Number(el.getAttribute(name));

function segDistance(p, a, b) {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const len2 = dx * dx + dy * dy;
  let t = len2 === 0 ? 0 : ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2;
  t = Math.max(0, Math.min(1, t));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

function polyDistance(p, pts) {
  let d = Infinity;
  for (let i = 1; i < pts.length; i++) d = Math.min(d, segDistance(p, pts[i - 1], pts[i]));
  if (pts.length === 1) d = Math.hypot(p.x - pts[0].x, p.y - pts[0].y);
  return d;
}

/**
 * arcCenter converts an SVG arc from a to b (radii rx, ry, x-axis rotation
 * phi in degrees, flags) to its centre and angles (SVG 1.1 F.6.5).
 */
function arcCenter(a, b, rx, ry, phiDeg, large, sweep) {
  const phi = (phiDeg * Math.PI) / 180;
  const cos = Math.cos(phi);
  const sin = Math.sin(phi);
  const dx = (a.x - b.x) / 2;
  const dy = (a.y - b.y) / 2;
  const x1 = cos * dx + sin * dy;
  const y1 = -sin * dx + cos * dy;
  const lambda = (x1 * x1) / (rx * rx) + (y1 * y1) / (ry * ry);
  if (lambda > 1) {
    rx *= Math.sqrt(lambda);
    ry *= Math.sqrt(lambda);
  }
  const num2 = rx * rx * ry * ry - rx * rx * y1 * y1 - ry * ry * x1 * x1;
  const den = rx * rx * y1 * y1 + ry * ry * x1 * x1;
  let k = den === 0 ? 0 : Math.sqrt(Math.max(0, num2 / den));
  if (large === sweep) k = -k;
  const cx1 = (k * rx * y1) / ry;
  const cy1 = (-k * ry * x1) / rx;
  const cx = cos * cx1 - sin * cy1 + (a.x + b.x) / 2;
  const cy = sin * cx1 + cos * cy1 + (a.y + b.y) / 2;
  const ang = (ux, uy, vx, vy) => {
    const s = ux * vy - uy * vx < 0 ? -1 : 1;
    const c = (ux * vx + uy * vy) / (Math.hypot(ux, uy) * Math.hypot(vx, vy));
    return s * Math.acos(Math.max(-1, Math.min(1, c)));
  };
  const t1 = ang(1, 0, (x1 - cx1) / rx, (y1 - cy1) / ry);
  let dt = ang((x1 - cx1) / rx, (y1 - cy1) / ry, (-x1 - cx1) / rx, (-y1 - cy1) / ry);
  if (!sweep && dt > 0) dt -= 2 * Math.PI;
  if (sweep && dt < 0) dt += 2 * Math.PI;
  const at = (t) => ({
    x: cx + rx * Math.cos(t) * cos - ry * Math.sin(t) * sin,
    y: cy + rx * Math.cos(t) * sin + ry * Math.sin(t) * cos,
  });
  return { c: { x: cx, y: cy }, t1, dt, at };
}

/** pathPieces reads the M, L, A, l and Z commands the export writes. */
function pathPieces(d) {
  const toks = d.match(/[MLAZml]|-?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?/gi) || [];
  const pieces = []; // {kind: "seg"|"arc", a, b, arc?}
  let i = 0;
  let cur = null;
  let start = null;
  let cmd = "";
  const n = () => Number(toks[i++]);
  while (i < toks.length) {
    if (/[MLAZml]/.test(toks[i])) cmd = toks[i++];
    switch (cmd) {
      case "M":
        cur = { x: n(), y: n() };
        start = cur;
        cmd = "L";
        break;
      case "L": {
        const b = { x: n(), y: n() };
        pieces.push({ kind: "seg", a: cur, b });
        cur = b;
        break;
      }
      case "l": {
        const b = { x: cur.x + n(), y: cur.y + n() };
        pieces.push({ kind: "seg", a: cur, b });
        cur = b;
        break;
      }
      case "A": {
        const rx = n();
        const ry = n();
        const rot = n();
        const large = n() !== 0;
        const sweep = n() !== 0;
        const b = { x: n(), y: n() };
        pieces.push({ kind: "arc", a: cur, b, arc: arcCenter(cur, b, rx, ry, rot, large, sweep) });
        cur = b;
        break;
      }
      case "Z":
      case "z":
        if (start && cur && (start.x !== cur.x || start.y !== cur.y)) pieces.push({ kind: "seg", a: cur, b: start });
        cur = start;
        cmd = "";
        break;
      default:
        i++;
    }
  }
  return { pieces, start };
}

function sampleArc(arc, n) {
  const pts = [];
  for (let k = 0; k <= n; k++) pts.push(arc.at(arc.t1 + (arc.dt * k) / n));
  return pts;
}

/** geometryOf is an entity element's {distance(p), snaps[]}, or null. */
function geometryOf(el) {
  const type = el.dataset.type;
  switch (el.localName) {
    case "line": {
      const a = { x: num(el, "x1"), y: num(el, "y1") };
      const b = { x: num(el, "x2"), y: num(el, "y2") };
      return {
        distance: (p) => segDistance(p, a, b),
        snaps: [{ ...a, kind: "end" }, { ...b, kind: "end" }, { x: (a.x + b.x) / 2, y: (a.y + b.y) / 2, kind: "mid" }],
      };
    }
    case "circle": {
      const c = { x: num(el, "cx"), y: num(el, "cy") };
      const r = num(el, "r");
      return {
        distance: (p) => Math.abs(Math.hypot(p.x - c.x, p.y - c.y) - r),
        snaps: [
          { ...c, kind: "center" },
          { x: c.x + r, y: c.y, kind: "quad" },
          { x: c.x, y: c.y - r, kind: "quad" },
          { x: c.x - r, y: c.y, kind: "quad" },
          { x: c.x, y: c.y + r, kind: "quad" },
        ],
      };
    }
    case "ellipse": {
      const c = { x: num(el, "cx"), y: num(el, "cy") };
      const rx = num(el, "rx");
      const ry = num(el, "ry");
      const m = /rotate\(\s*(-?[\d.e+-]+)/.exec(el.getAttribute("transform") || "");
      const phi = ((m ? Number(m[1]) : 0) * Math.PI) / 180;
      const at = (t) => ({
        x: c.x + rx * Math.cos(t) * Math.cos(phi) - ry * Math.sin(t) * Math.sin(phi),
        y: c.y + rx * Math.cos(t) * Math.sin(phi) + ry * Math.sin(t) * Math.cos(phi),
      });
      const pts = [];
      for (let k = 0; k <= 96; k++) pts.push(at((2 * Math.PI * k) / 96));
      return {
        distance: (p) => polyDistance(p, pts),
        snaps: [{ ...c, kind: "center" }, ...[0, 1, 2, 3].map((k) => ({ ...at((k * Math.PI) / 2), kind: "quad" }))],
      };
    }
    case "path": {
      const { pieces, start } = pathPieces(el.getAttribute("d") || "");
      if (type === "point" || pieces.length === 0 || (pieces.length === 1 && pieces[0].a.x === pieces[0].b.x && pieces[0].a.y === pieces[0].b.y)) {
        const p = start || { x: 0, y: 0 };
        return { distance: (q) => Math.hypot(q.x - p.x, q.y - p.y), snaps: [{ ...p, kind: "node" }] };
      }
      const pts = [];
      const snaps = [];
      for (const pc of pieces) {
        if (pc.kind === "seg") {
          if (pts.length === 0) pts.push(pc.a);
          pts.push(pc.b);
          snaps.push({ x: (pc.a.x + pc.b.x) / 2, y: (pc.a.y + pc.b.y) / 2, kind: "mid" });
        } else {
          const s = sampleArc(pc.arc, 48);
          pts.push(...(pts.length === 0 ? s : s.slice(1)));
          snaps.push({ ...pc.arc.c, kind: "center" }, { ...pc.arc.at(pc.arc.t1 + pc.arc.dt / 2), kind: "mid" });
        }
        snaps.push({ ...pc.a, kind: "end" }, { ...pc.b, kind: "end" });
      }
      return { distance: (p) => polyDistance(p, pts), snaps };
    }
    case "text": {
      const ins = { x: num(el, "x"), y: num(el, "y") };
      let box = null;
      return {
        distance: (p) => {
          if (!box) {
            try {
              box = el.getBBox();
            } catch {
              box = { x: ins.x, y: ins.y, width: 0, height: 0 };
            }
          }
          const dx = Math.max(box.x - p.x, 0, p.x - (box.x + box.width));
          const dy = Math.max(box.y - p.y, 0, p.y - (box.y + box.height));
          return Math.hypot(dx, dy);
        },
        snaps: [{ ...ins, kind: "insertion" }],
      };
    }
  }
  return null;
}
