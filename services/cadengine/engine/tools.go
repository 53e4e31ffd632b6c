package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/drawing"
)

// toolTable maps every tool of the catalog to its function. Names, schemas
// and annotations come from enginev1.Tools; whether a tool reads or writes
// comes from its read_only annotation.
func toolTable() map[string]toolSpec {
	return map[string]toolSpec{
		// documents
		enginev1.ToolDocumentCreate: engineTool(documentCreate),
		enginev1.ToolDocumentInfo:   docTool(documentInfo),
		enginev1.ToolDocumentExport: docTool(documentExport),
		enginev1.ToolDocumentImport: engineTool(documentImport),

		// create
		enginev1.ToolEntityCreatePoint:     docTool(createPoint),
		enginev1.ToolEntityCreateLine:      docTool(createLine),
		enginev1.ToolEntityCreateCircle:    docTool(createCircle),
		enginev1.ToolEntityCreateArc:       docTool(createArc),
		enginev1.ToolEntityCreatePolyline:  docTool(createPolyline),
		enginev1.ToolEntityCreateRectangle: docTool(createRectangle),
		enginev1.ToolEntityCreateText:      docTool(createText),
		enginev1.ToolEntityCreateEllipse:   docTool(createEllipse),
		enginev1.ToolEntityBatchCreate:     docTool(batchCreate).withDense(decodeNewEntities),

		// annotation and blocks
		enginev1.ToolEntityCreateMtext:        docTool(createMtext),
		enginev1.ToolDimensionCreateAligned:   docTool(dimensionAligned),
		enginev1.ToolDimensionCreateLinear:    docTool(dimensionLinear),
		enginev1.ToolDimensionCreateRadial:    docTool(dimensionRadial),
		enginev1.ToolDimensionCreateDiametric: docTool(dimensionDiametric),
		enginev1.ToolDimensionCreateAngular:   docTool(dimensionAngular),
		enginev1.ToolDimensionStyleList:       docTool(dimensionStyleList),
		enginev1.ToolHatchCreate:              docTool(hatchCreate),
		enginev1.ToolBlockDefine:              docTool(blockDefine),
		enginev1.ToolBlockInsert:              docTool(blockInsert),
		enginev1.ToolBlockExplode:             docTool(blockExplode),
		enginev1.ToolBlockList:                docTool(blockList),
		enginev1.ToolBlockDelete:              docTool(blockDelete),

		// query
		enginev1.ToolEntityGet:               docTool(entityGet),
		enginev1.ToolEntityList:              docTool(entityList),
		enginev1.ToolSelectionWindow:         docTool(selectionWindow),
		enginev1.ToolAnalysisBoundingBox:     docTool(boundingBox),
		enginev1.ToolAnalysisMeasureDistance: docTool(measureDistance),
		enginev1.ToolAnalysisMeasureEntity:   docTool(measureEntity),

		// modify
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

		// modify: the drafting toolset's corners and cuts (issue #37, DESIGN §11)
		enginev1.ToolEntityFillet:  docTool(entityFillet),
		enginev1.ToolEntityChamfer: docTool(entityChamfer),
		enginev1.ToolEntityTrim:    docTool(entityTrim),
		enginev1.ToolEntityExtend:  docTool(entityExtend),
		enginev1.ToolEntityBreak:   docTool(entityBreak),
		enginev1.ToolEntityJoin:    docTool(entityJoin),

		// exact points
		enginev1.ToolPointFromSnap:     docTool(pointFromSnap),
		enginev1.ToolPointIntersection: docTool(pointIntersection),
		enginev1.ToolPointTangent:      docTool(pointTangent),

		// layers
		enginev1.ToolLayerCreate:     docTool(layerCreate),
		enginev1.ToolLayerList:       docTool(layerList),
		enginev1.ToolLayerModify:     docTool(layerModify),
		enginev1.ToolLayerSetCurrent: docTool(layerSetCurrent),
		enginev1.ToolLayerLock:       docTool(layerLock),
		enginev1.ToolLayerUnlock:     docTool(layerUnlock),
		enginev1.ToolLayerDelete:     docTool(layerDelete),

		// checkpoints
		enginev1.ToolTransactionBegin:    docTool(transactionBegin),
		enginev1.ToolTransactionCommit:   docTool(transactionCommit),
		enginev1.ToolTransactionRollback: docTool(transactionRollback),

		// interactive: server requests to the caller's client
		enginev1.ToolPointPick:  docTool(pointPick),
		enginev1.ToolEntityPick: docTool(entityPick),

		// system
		enginev1.ToolSystemStatus:       engineTool(systemStatus),
		enginev1.ToolSystemCapabilities: engineTool(systemCapabilities),

		// view (issue #38): pictures for agents
		enginev1.ToolViewRender: docTool(viewRender),
		// create: the drafting toolset (issue #37, DESIGN §11)
		enginev1.ToolEntityCreateSpline:   docTool(createSpline),
		enginev1.ToolEntityCreateLeader:   docTool(createLeader),
		enginev1.ToolEntityCreateXline:    docTool(createXline),
		enginev1.ToolEntityCreateRay:      docTool(createRay),
		enginev1.ToolEntityCreateRevcloud: docTool(createRevcloud),
		enginev1.ToolEntityCreateWipeout:  docTool(createWipeout),
		enginev1.ToolEntityCreateSolid:    docTool(createSolid),
		enginev1.ToolEntityCreateTable:    docTool(createTable),

		// arrange: the drafting toolset (issue #37, DESIGN §11)
		enginev1.ToolEntityExplode:          docTool(entityExplode),
		enginev1.ToolEntityStretch:          docTool(entityStretch),
		enginev1.ToolEntityArrayRectangular: docTool(arrayRectangular),
		enginev1.ToolEntityArrayPolar:       docTool(arrayPolar),
		enginev1.ToolEntityBatchModify:      docTool(batchModify),
		// text, select & measure, block attributes (issue #37, DESIGN §11)
		enginev1.ToolTextEdit:            docTool(textEdit),
		enginev1.ToolTextFindReplace:     docTool(textFindReplace),
		enginev1.ToolSelectionFilter:     docTool(selectionFilter),
		enginev1.ToolSelectionPolygon:    docTool(selectionPolygon),
		enginev1.ToolAnalysisMeasureArea: docTool(measureArea),
		enginev1.ToolAnalysisEntityStats: docTool(entityStats),
		enginev1.ToolAnalysisLayerStats:  docTool(layerStats),
		enginev1.ToolBlockAttributesGet:  docTool(blockAttributesGet),
		enginev1.ToolBlockAttributesSet:  docTool(blockAttributesSet),
		enginev1.ToolBlockReferences:     docTool(blockReferences),
		// document: undo, redo, purge, audit, boundary (issue #37, DESIGN §11)
		enginev1.ToolDocumentUndo:  docTool(documentUndo),
		enginev1.ToolDocumentRedo:  docTool(documentRedo),
		enginev1.ToolBoundaryTrace: docTool(boundaryTrace),
		enginev1.ToolDocumentPurge: docTool(documentPurge),
		enginev1.ToolDocumentAudit: docTool(documentAudit),
		// catalog (issue #38): find and describe tools
		enginev1.ToolToolSearch:   engineTool(toolSearch),
		enginev1.ToolToolDescribe: engineTool(toolDescribe),
		// annotate: edit hatches, dimension many entities at once
		enginev1.ToolHatchEdit:        docTool(hatchEdit),
		enginev1.ToolHatchAddBoundary: docTool(hatchAddBoundary),
		enginev1.ToolDimensionAuto:    docTool(dimensionAuto),
		// parts (issue 39, DESIGN §12): standard parts
		enginev1.ToolPartSpurGear: docTool(partSpurGear),
		enginev1.ToolPartKeyway:   docTool(partKeyway),
		enginev1.ToolGdtFrame:     docTool(gdtFrame),
		// critique (issue 39, DESIGN §12)
		enginev1.ToolDrawingCritique: docTool(drawingCritique),
		// standards (issue #39, DESIGN §12): templates, linetypes, layer visibility, settings
		enginev1.ToolTemplateList:        docTool(templateList),
		enginev1.ToolTemplateApplyLayers: docTool(templateApplyLayers),
		enginev1.ToolLinetypeList:        docTool(linetypeList),
		enginev1.ToolLinetypeLoad:        docTool(linetypeLoad),
		enginev1.ToolLayerFreeze:         docTool(layerFreeze),
		enginev1.ToolLayerThaw:           docTool(layerThaw),
		enginev1.ToolLayerHide:           docTool(layerHide),
		enginev1.ToolLayerShow:           docTool(layerShow),
		enginev1.ToolLayerIsolate:        docTool(layerIsolate),
		enginev1.ToolDrawingSettings:     docTool(drawingSettings),
		// layout: sheets, viewports and paper space (issue #39, DESIGN §12)
		enginev1.ToolLayoutCreate:      docTool(layoutCreate),
		enginev1.ToolLayoutList:        docTool(layoutList),
		enginev1.ToolLayoutRename:      docTool(layoutRename),
		enginev1.ToolLayoutCopy:        docTool(layoutCopy),
		enginev1.ToolLayoutDelete:      docTool(layoutDelete),
		enginev1.ToolViewportCreate:    docTool(viewportCreate),
		enginev1.ToolViewportList:      docTool(viewportList),
		enginev1.ToolViewportSetScale:  docTool(viewportSetScale),
		enginev1.ToolViewportLock:      docTool(viewportLock),
		enginev1.ToolViewportDelete:    docTool(viewportDelete),
		enginev1.ToolEntityChangeSpace: docTool(entityChangeSpace),
		// constraints (issue #40, DESIGN §14)
		enginev1.ToolConstraintAdd:      docTool(constraintAdd),
		enginev1.ToolConstraintList:     docTool(constraintList),
		enginev1.ToolConstraintDelete:   docTool(constraintDelete),
		enginev1.ToolConstraintSetValue: docTool(constraintSetValue),
		enginev1.ToolSketchSolve:        docTool(sketchSolve),
		// sheets: title blocks (issue #39, DESIGN §12)
		enginev1.ToolTitleblockApply: docTool(titleblockApply),
		// fills (MTEXT background masks, gradient hatches)
		enginev1.ToolTextSetBackground: docTool(textSetBackground),
		enginev1.ToolHatchSetGradient:  docTool(hatchSetGradient),
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
	// dense, when set, decodes the tool's arguments into a form of its
	// own instead of its args message (for tools whose arguments can be
	// large), or returns nil for arguments it leaves to the args message;
	// nil means always the args message.
	dense func(raw []byte) denseArgs
}

// denseArgs are a tool's arguments in the form its toolSpec.dense reads
// them into. They must stand for the args message exactly: the dense
// decoder takes only arguments that decode into that message and pass its
// rules, and meets no handle field (validation checks those in the
// message); what they hash as and what the tool does with them is what it
// would be with the message. No approval reads them: a tool with a dense
// form is not destructive.
type denseArgs interface {
	// canonicalSize is the length of the deterministic protobuf encoding
	// of the args message, which the request hash covers (see appendArgs).
	canonicalSize() int
	// writeCanonical writes that encoding to w, in pieces (w is a hash,
	// or a buffer): the arguments need not keep it whole.
	writeCanonical(w io.Writer)
	// run runs the tool on them and returns its result as JSON (the bytes
	// contract.Marshal writes of the result message): a tool with a dense
	// form has no handle in its result (compileTools checks), so nothing
	// reads the message.
	run(c *call) (result []byte, err error)
}

// withDense is s with a dense form of its arguments.
func (s toolSpec) withDense(decode func(raw []byte) denseArgs) toolSpec {
	s.dense = decode
	return s
}

// tool is a catalog entry ready to run: its args and result messages, the
// args' compiled schema (which tells exactly what is wrong with arguments
// the generated decoder refuses), the result's handle field, and the
// function.
type tool struct {
	info enginev1.ToolInfo
	// schema is the args' compiled schema, compiled when first needed
	// (arguments the generated decoder refuses are rare, and compiling
	// every tool's was most of what New allocated); TestToolSchemas
	// compiles them all.
	schema func() (*contract.Schema, error)
	args   slot                         // the args message
	result slot                         // the result message
	handle protoreflect.FieldDescriptor // the result's handle field, or nil
	// handleGetter says that the result's GetHandle method reads the
	// handle field, which is a plain string (always present): run.runStep
	// then calls it rather than reading the field by reflection.
	handleGetter bool
	spec         toolSpec
	// argsSlice is the type of a slice of args structs (the generated
	// message type, not its pointer), for making many at once (see
	// argsSlab); nil when the args message is not a Go struct.
	argsSlice reflect.Type
}

// handleGetter is a result message with a handle field (generated code
// names its getter after the field).
type handleGetter interface{ GetHandle() string }

// ReadsOnly reports whether the tool named name is read-only (changes
// nothing); false for a tool the engine does not have.
func (e *Engine) ReadsOnly(name string) bool {
	t := e.tools[name]
	return t != nil && t.info.Annotations.GetReadOnly()
}

// call is what a tool function gets.
type call struct {
	ctx       context.Context
	e         *Engine
	principal string
	opID      string
	d         *document     // nil for engine tools
	tx        *drawing.Tx   // nil for read-only tools
	r         *run          // the running operation; nil outside one
	step      int           // the step's index in r
	created   *document     // set by document_create and document_import: the run commits and publishes it
	args      proto.Message // the step's decoded arguments; nil for a tool's dense form
	dry       bool          // set by a mutating tool's own dry run (sketch_solve's): the step changed nothing and takes no revision
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

// compileTools pairs every catalog entry with its function and its input
// schema (compiled when first needed). A catalog tool without a function (a proto added ahead of
// the engine) answers unsupported with the tool's name as capability.
func compileTools() (map[string]*tool, error) {
	table := toolTable()
	out := make(map[string]*tool, len(enginev1.Tools))
	for _, info := range enginev1.Tools {
		spec, ok := table[info.Name]
		if !ok {
			spec = unsupportedTool(scopeDocument, info.Name, "this engine does not implement "+info.Name)
		}
		t := &tool{
			info:   info,
			schema: sync.OnceValues(func() (*contract.Schema, error) { return contract.CompileSchema(info.Name+".args", info.InputSchema) }),
			args:   messageSlot(info.Args.ProtoReflect().Descriptor()),
			result: messageSlot(info.Result.ProtoReflect().Descriptor()),
			spec:   spec,
		}
		if typ := reflect.TypeOf(info.Args); typ != nil && typ.Kind() == reflect.Pointer && typ.Elem().Kind() == reflect.Struct {
			t.argsSlice = reflect.SliceOf(typ.Elem())
		}
		if h, ok := t.result.property("handle"); ok && h.isHandle() {
			if spec.dense != nil {
				return nil, fmt.Errorf("engine: %s has a dense form, whose result is only its JSON, and a handle in its result", info.Name)
			}
			t.handle = h.fd
			_, getter := info.Result.(handleGetter)
			t.handleGetter = getter && h.fd.Name() == "handle" && h.fd.Kind() == protoreflect.StringKind &&
				!h.fd.HasPresence() && h.fd.Cardinality() != protoreflect.Repeated
		}
		out[info.Name] = t
	}
	return out, nil
}

// CallTool runs one tool as a batch of one step, with the same operation
// ids, idempotent retries, journaling, approvals and server requests (see
// ExecuteBatch and opTable). It differs from such a batch in what a
// single call needs: the tool need not be batchable (document_create
// works), its args are taken literally ("$" means nothing), the step's
// operation id is the call's own, the result is always whole, and the
// checkpoint tools answer unsupported with capability
// "transactions_outside_batch" — a checkpoint lives inside a cad.batch.
//
// A tool failure — unknown tool, arguments that break the schema, a
// locked layer, geometry that cannot be computed — is a response with ok
// false and a typed error. Errors are for the protocol: a document that
// does not exist (ErrNotFound), a missing document_id or a bad
// operation_id (ErrInvalid), a context that ended before the tool ran, a
// store failure, or a closed engine.
func (e *Engine) CallTool(ctx context.Context, caller Caller, req *enginev1.CallToolRequest) (*enginev1.CallToolResponse, error) {
	if err := e.enter(); err != nil {
		return nil, err
	}
	defer e.calls.Done()

	opID, explicit, err := operationID(req.OperationId)
	if err != nil {
		return nil, err
	}
	t := e.tools[req.GetTool()]
	var d *document
	if t == nil || t.spec.scope == scopeDocument {
		id := req.GetDocumentId()
		switch {
		case id != "":
			if d, err = e.docFor(ctx, id); err != nil && t != nil {
				return nil, err
			}
		case t != nil:
			return nil, fmt.Errorf("%w: tool %s needs document_id", ErrInvalid, t.info.Name)
		}
	}
	// The run comes first: the call's plan lives in it (run.own).
	r := runs.Get().(*run)
	defer r.release()
	s := e.planCallIn(req, opID, &r.own)
	var errs []*enginev1.ToolError
	if s.invalid != nil {
		errs = append(errs, s.invalid.pb)
	}

	now := e.now()
	e.pruneOperations(ctx, now)
	docID := ""
	if d != nil {
		docID = d.ID
	}
	if explicit {
		if err := e.recall(ctx, caller.Principal, opID, d); err != nil {
			return nil, err
		}
	}
	o := e.newOp(caller.Principal, opID, explicit, req.GetTool(), docID, requestHash{}, now)
	setCallHash(o, req, s)
	defer o.requestHash() // a hash taken while the call runs ends with it
	prior, st, claimed := e.ops.claim(o)
	var res *enginev1.ExecuteBatchResponse
	var into *enginev1.CallToolResponse
	r.ownSteps[0] = s
	if claimed != claimNew {
		res, err = e.answerClaimed(prior, st, claimed, opID, r.ownSteps[:], d)
	} else {
		r.start(ctx, e, caller, o, d, r.ownSteps[:])
		r.single = true
		res, err = r.execute(errs, nil, nil)
		into = r.callResp
	}
	if err != nil {
		return nil, err
	}
	return callResponse(res, req.GetTool(), into), nil
}

// planCall is a tools.call's one step: the tool and its arguments,
// decoded (a call's args are taken literally), or why they are refused.
func (e *Engine) planCall(req *enginev1.CallToolRequest, opID string) *stepPlan {
	return e.planCallIn(req, opID, new(stepPlan))
}

// planCallIn is planCall in s.
func (e *Engine) planCallIn(req *enginev1.CallToolRequest, opID string, s *stepPlan) *stepPlan {
	t := e.tools[req.GetTool()]
	*s = stepPlan{name: req.GetTool(), tool: t, opID: opID, raw: argsOf(req.ArgsJson, req.GetArgs())}
	if t == nil {
		s.invalid = toolErr(enginev1.ErrorKind_ERROR_KIND_UNKNOWN_TOOL, "no tool is named %q", req.GetTool())
	} else if s.dense = t.decodeDense(s.raw); s.dense == nil {
		s.decoded, s.invalid = t.decodeArgs(s.raw)
	}
	if s.invalid != nil {
		s.invalid.pb.OperationId = new(opID) // its own: s lives in a run that is reused
	}
	return s
}

// callResponse is a tools.call answer from its one-step batch result,
// made in into (room newResponse made beside b) unless into is nil.
func callResponse(b *enginev1.ExecuteBatchResponse, tool string, into *enginev1.CallToolResponse) *enginev1.CallToolResponse {
	resp := into
	if resp == nil {
		resp = &enginev1.CallToolResponse{}
	}
	resp.Tool, resp.OperationId, resp.Revision, resp.Replayed = tool, b.GetOperationId(), b.GetRevision().GetAfter(), b.GetReplayed()
	var step *enginev1.StepResult
	if len(b.GetResults()) > 0 {
		step = b.GetResults()[0]
	}
	switch {
	case step.GetStatus() == enginev1.StepStatus_STEP_STATUS_OK:
		resp.Ok, resp.ResultJson = true, step.GetResultJson()
	case step.GetError() != nil:
		resp.Error = step.GetError()
	default:
		resp.Error = b.GetError()
	}
	return resp
}

// emptyObject is the arguments of a call that gives none.
var emptyObject = []byte("{}")

// argsOf is a request's tool arguments as JSON: the JSON it carries, else
// (a caller of the contract before args_json) its Struct, encoded.
func argsOf(data []byte, st *structpb.Struct) []byte {
	switch {
	case data != nil:
		return data
	case st != nil:
		b, err := contract.Marshal(st)
		if err == nil {
			return b
		}
	}
	return emptyObject
}

// decodeDense decodes a tool's arguments in its dense form, or returns
// nil when the tool has none or leaves these arguments to decodeArgs.
func (t *tool) decodeDense(data []byte) denseArgs {
	if t.spec.dense == nil {
		return nil
	}
	return t.spec.dense(data)
}

// decodeArgs decodes a tool's arguments and checks them against its
// contract: an argument that breaks it is invalid_args, with the path,
// reason and message the schema gives.
func (t *tool) decodeArgs(data []byte) (proto.Message, *toolError) {
	return t.decodeArgsInto(data, t.info.Args.ProtoReflect().New().Interface())
}

// decodeArgsInto is decodeArgs into args, an empty message of the tool's
// args type.
func (t *tool) decodeArgsInto(data []byte, args proto.Message) (proto.Message, *toolError) {
	// The generated decoder and rules first, as UnmarshalChecked would
	// try them; only arguments they refuse need the schema, which tells
	// what is wrong.
	if _, ok := contract.DecodeFast(data, args, ""); ok {
		return args, nil
	}
	schema, err := t.schema()
	if err != nil {
		return nil, invalidArgs("", reasonInvalid, "%v", err)
	}
	if err := contract.UnmarshalChecked(data, args, schema); err != nil {
		var viol *contract.Violation
		if errors.As(err, &viol) {
			return nil, invalidArgs(viol.Path, viol.Reason, "%s", viol.Message)
		}
		return nil, invalidArgs("", reasonInvalid, "%v", err)
	}
	return args, nil
}

// ---- helpers for tool functions ----

// Entity looks up an entity by the handle argument at path: a malformed
// handle is invalid_args, a handle that names no entity is failed.
func (c *call) Entity(path, handle string) (*drawing.Entity, error) {
	h, ok := drawing.ParseHandle(handle)
	if !ok {
		return nil, invalidArgs(path, reasonInvalid, "%q is not an entity handle (hex digits)", handle)
	}
	e := c.d.Entity(h)
	if e == nil {
		return nil, failed("the document has no entity %s", drawing.FormatHandle(h))
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
