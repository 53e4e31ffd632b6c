package core

import (
	"context"
	"errors"
	"fmt"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// toolTable maps every tool of the catalog to its function. Names, schemas
// and annotations come from enginev1.Tools; whether a tool reads or writes
// comes from its read_only annotation.
func toolTable() map[string]toolSpec {
	return map[string]toolSpec{
		// documents (documents.go; export.go and svg.go render)
		enginev1.ToolDocumentCreate: engineTool(documentCreate),
		enginev1.ToolDocumentInfo:   docTool(documentInfo),
		enginev1.ToolDocumentExport: docTool(documentExport),
		enginev1.ToolDocumentImport: unsupportedTool(scopeEngine, "dxf_import",
			"importing DXF is not implemented yet"),

		// create (create.go)
		enginev1.ToolEntityCreatePoint:     docTool(createPoint),
		enginev1.ToolEntityCreateLine:      docTool(createLine),
		enginev1.ToolEntityCreateCircle:    docTool(createCircle),
		enginev1.ToolEntityCreateArc:       docTool(createArc),
		enginev1.ToolEntityCreatePolyline:  docTool(createPolyline),
		enginev1.ToolEntityCreateRectangle: docTool(createRectangle),
		enginev1.ToolEntityCreateText:      docTool(createText),
		enginev1.ToolEntityCreateEllipse:   docTool(createEllipse),
		enginev1.ToolEntityBatchCreate:     docTool(batchCreate),

		// query (query.go)
		enginev1.ToolEntityGet:               docTool(entityGet),
		enginev1.ToolEntityList:              docTool(entityList),
		enginev1.ToolSelectionWindow:         docTool(selectionWindow),
		enginev1.ToolAnalysisBoundingBox:     docTool(boundingBox),
		enginev1.ToolAnalysisMeasureDistance: docTool(measureDistance),
		enginev1.ToolAnalysisMeasureEntity:   docTool(measureEntity),

		// modify (modify.go)
		enginev1.ToolEntityMove:          docTool(entityMove),
		enginev1.ToolEntityCopy:          docTool(entityCopy),
		enginev1.ToolEntityRotate:        docTool(entityRotate),
		enginev1.ToolEntityScale:         docTool(entityScale),
		enginev1.ToolEntityMirror:        docTool(entityMirror),
		enginev1.ToolEntityOffset:        docTool(entityOffset),
		enginev1.ToolEntityEditGeometry:  docTool(editGeometry),
		enginev1.ToolEntitySetProperties: docTool(setProperties),
		enginev1.ToolEntityDelete:        docTool(entityDelete),
		enginev1.ToolEntityDeleteMany:    docTool(deleteMany),

		// exact points (snap.go)
		enginev1.ToolPointFromSnap:     docTool(pointFromSnap),
		enginev1.ToolPointIntersection: docTool(pointIntersection),
		enginev1.ToolPointTangent:      docTool(pointTangent),

		// layers (layers.go)
		enginev1.ToolLayerCreate:     docTool(layerCreate),
		enginev1.ToolLayerList:       docTool(layerList),
		enginev1.ToolLayerModify:     docTool(layerModify),
		enginev1.ToolLayerSetCurrent: docTool(layerSetCurrent),
		enginev1.ToolLayerLock:       docTool(layerLock),
		enginev1.ToolLayerUnlock:     docTool(layerUnlock),
		enginev1.ToolLayerDelete:     docTool(layerDelete),

		// checkpoints: the batch runner will own them.
		enginev1.ToolTransactionBegin: unsupportedTool(scopeDocument, "transactions",
			"checkpoints need the batch runner, which is not built yet"),
		enginev1.ToolTransactionCommit: unsupportedTool(scopeDocument, "transactions",
			"checkpoints need the batch runner, which is not built yet"),
		enginev1.ToolTransactionRollback: unsupportedTool(scopeDocument, "transactions",
			"checkpoints need the batch runner, which is not built yet"),

		// interactive: they need a session to send server requests on.
		enginev1.ToolPointPick: unsupportedTool(scopeDocument, "server_request:pick.point",
			"picking a point needs a session whose client answers pick.point; the core has none"),
		enginev1.ToolEntityPick: unsupportedTool(scopeDocument, "server_request:pick.entities",
			"picking entities needs a session whose client answers pick.entities; the core has none"),

		// system (system.go)
		enginev1.ToolSystemStatus:       engineTool(systemStatus),
		enginev1.ToolSystemCapabilities: engineTool(systemCapabilities),
	}
}

// scope says whether a tool works on a document.
type scope uint8

const (
	scopeDocument scope = iota // needs document_id
	scopeEngine                // document_create and the system tools
)

// handler runs a tool on decoded arguments. A *toolError is a tool
// failure; any other error is a protocol error.
type handler func(c *call, args proto.Message) (proto.Message, error)

type toolSpec struct {
	scope scope
	run   handler
}

// tool is a catalog entry ready to run: compiled schema and function.
type tool struct {
	info   enginev1.ToolInfo
	schema *contract.Schema
	spec   toolSpec
}

// call is what a tool function gets.
type call struct {
	ctx       context.Context
	e         *Engine
	principal string
	opID      string
	d         *document // nil for engine tools
	tx        *tx       // nil for read-only tools
}

func adapt[A, R proto.Message](f func(*call, A) (R, error)) handler {
	return func(c *call, a proto.Message) (proto.Message, error) {
		r, err := f(c, a.(A))
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

func docTool[A, R proto.Message](f func(*call, A) (R, error)) toolSpec {
	return toolSpec{scope: scopeDocument, run: adapt(f)}
}

func engineTool[A, R proto.Message](f func(*call, A) (R, error)) toolSpec {
	return toolSpec{scope: scopeEngine, run: adapt(f)}
}

// unsupportedTool answers unsupported, naming the missing capability.
func unsupportedTool(s scope, capability, why string) toolSpec {
	return toolSpec{scope: s, run: func(*call, proto.Message) (proto.Message, error) {
		return nil, unsupported(capability, "%s", why)
	}}
}

// compileTools pairs every catalog entry with its function and compiled
// input schema. A catalog tool without a function (a proto added ahead of
// the engine) answers unsupported with the tool's name as capability.
func compileTools() (map[string]*tool, error) {
	table := toolTable()
	out := make(map[string]*tool, len(enginev1.Tools))
	for _, info := range enginev1.Tools {
		s, err := contract.CompileSchema(info.Name+".args", info.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("core: %w", err)
		}
		spec, ok := table[info.Name]
		if !ok {
			spec = unsupportedTool(scopeDocument, info.Name, "this engine does not implement "+info.Name)
		}
		out[info.Name] = &tool{info: info, schema: s, spec: spec}
	}
	return out, nil
}

// CallTool runs one tool. A tool failure — unknown tool, arguments that
// break the schema, a locked layer, geometry that cannot be computed — is
// a response with ok false and a typed error. Errors are for the protocol:
// a document that does not exist (ErrNotFound), a missing document_id
// (ErrInvalid), a cancelled ctx before the tool ran, a store failure, or a
// closed engine.
func (e *Engine) CallTool(ctx context.Context, principal string, req *enginev1.CallToolRequest) (*enginev1.CallToolResponse, error) {
	done, err := e.enter()
	if err != nil {
		return nil, err
	}
	defer done()

	opID := req.GetOperationId()
	if opID == "" {
		opID = "op-" + randomHex(8)
	}
	resp := &enginev1.CallToolResponse{Tool: req.GetTool(), OperationId: opID}
	fail := func(err *toolError) (*enginev1.CallToolResponse, error) {
		err.pb.OperationId = &opID
		resp.Ok, resp.Error, resp.Result = false, err.pb, nil
		return resp, nil
	}

	t := e.tools[req.GetTool()]
	var d *document
	if t == nil || t.spec.scope == scopeDocument {
		id := req.GetDocumentId()
		switch {
		case id != "":
			if d, err = e.doc(id); err != nil && t != nil {
				return nil, err
			}
		case t != nil:
			return nil, fmt.Errorf("%w: tool %s needs document_id", ErrInvalid, t.info.Name)
		}
	}
	if d != nil {
		d.mu.RLock()
		resp.Revision = d.revision
		d.mu.RUnlock()
	}
	if t == nil {
		return fail(toolErr(enginev1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL, "no tool is named %q", req.GetTool()))
	}

	var v any = map[string]any{}
	if req.GetArgs() != nil {
		v = req.GetArgs().AsMap()
	}
	if viol := t.schema.Validate(v); viol != nil {
		return fail(invalidArgs(viol.Path, viol.Reason, "%s", viol.Message))
	}
	args := t.info.Args.ProtoReflect().New().Interface()
	if err := contract.Decode(v, args); err != nil {
		var viol *contract.Violation
		if errors.As(err, &viol) {
			return fail(invalidArgs(viol.Path, viol.Reason, "%s", viol.Message))
		}
		return nil, fmt.Errorf("decode %s args: %w", t.info.Name, err)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}

	e.noteOperation(principal, opID)
	c := &call{ctx: ctx, e: e, principal: principal, opID: opID, d: d}
	res, rev, err := e.run(c, t, args)
	resp.Revision = rev
	if err != nil {
		var te *toolError
		if errors.As(err, &te) {
			return fail(te)
		}
		return nil, err
	}
	s, err := contract.ToStruct(res)
	if err != nil {
		return nil, fmt.Errorf("encode %s result: %w", t.info.Name, err)
	}
	resp.Ok, resp.Result = true, s
	return resp, nil
}

// run runs a decoded call with the locking its tool needs and returns the
// result and the document revision after it (0 for engine tools).
func (e *Engine) run(c *call, t *tool, args proto.Message) (proto.Message, int64, error) {
	switch {
	case c.d == nil:
		res, err := t.spec.run(c, args)
		return res, 0, err
	case t.info.Annotations.GetReadOnly():
		c.d.mu.RLock()
		defer c.d.mu.RUnlock()
		res, err := t.spec.run(c, args)
		return res, c.d.revision, err
	default:
		var (
			res proto.Message
			rev int64
		)
		err := e.inLane(c.ctx, c.d, func(tx *tx) error {
			c.tx = tx
			out, err := e.step(c.ctx, tx, func() (any, error) { return t.spec.run(c, args) })
			rev = tx.d.revision
			if err == nil {
				res = out.(proto.Message)
			}
			return err
		})
		if err != nil {
			var te *toolError
			if !errors.As(err, &te) {
				return nil, 0, err
			}
		}
		return res, rev, err
	}
}

// ---- helpers for tool functions ----

// entity looks up an entity by the handle argument at path: a malformed
// handle is invalid_args, a handle that names no entity is failed.
func (c *call) entity(path, handle string) (*entity, error) {
	h, ok := parseHandle(handle)
	if !ok {
		return nil, invalidArgs(path, reasonInvalid, "%q is not an entity handle (hex digits)", handle)
	}
	e := c.d.entities[h]
	if e == nil {
		return nil, failed("the document has no entity %s", formatHandle(h))
	}
	return e, nil
}

// setFields lists the fields set in m, except those named in skip.
func setFields(m proto.Message, skip ...string) []protoreflect.FieldDescriptor {
	var out []protoreflect.FieldDescriptor
	m.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		for _, s := range skip {
			if string(fd.Name()) == s {
				return true
			}
		}
		out = append(out, fd)
		return true
	})
	return out
}

func enumName(ev protoreflect.EnumValueDescriptor) string { return contract.EnumName(ev) }

// typeName is the wire name of an entity type ("line").
func typeName(t enginev1.EntityType) string {
	return enumName(t.Descriptor().Values().ByNumber(t.Number()))
}
