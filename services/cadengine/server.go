package cadengine

import (
	"context"

	"google.golang.org/grpc/metadata"

	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
	"github.com/cadbridge/cadbridge/services/cadengine/engine"
)

// version is reported by system status.
const version = "0.1.0"

// anonymous is the principal of unary calls that name none.
const anonymous = "anonymous"

// principalHeader is the gRPC metadata key a gateway sets to the
// authenticated principal of a REST call.
const principalHeader = "x-cadbridge-principal"

// principal is the caller of a unary RPC: the one its gateway names, else
// anonymous. The engine trusts its gateways; it is not exposed to clients.
func principal(ctx context.Context) string {
	if md, ok := metadata.FromIncomingContext(ctx); ok {
		if v := md.Get(principalHeader); len(v) == 1 && v[0] != "" {
			return v[0]
		}
	}
	return anonymous
}

// CallTool runs one tool without a session.
func (s *Server) CallTool(ctx context.Context, req *enginev1.CallToolRequest) (*enginev1.CallToolResponse, error) {
	resp, err := s.engine.CallTool(ctx, engine.Caller{Principal: principal(ctx)}, req)
	return resp, toStatus(err).Err()
}

// ExecuteBatch runs cad.batch without a session.
func (s *Server) ExecuteBatch(ctx context.Context, req *enginev1.ExecuteBatchRequest) (*enginev1.ExecuteBatchResponse, error) {
	resp, err := s.engine.ExecuteBatch(ctx, engine.Caller{Principal: principal(ctx)}, req)
	return resp, toStatus(err).Err()
}

// GetOperation reads an operation record of the caller's principal.
func (s *Server) GetOperation(ctx context.Context, req *enginev1.GetOperationRequest) (*enginev1.GetOperationResponse, error) {
	op, err := s.engine.GetOperation(ctx, principal(ctx), req.GetOperationId())
	if err != nil {
		return nil, toStatus(err).Err()
	}
	return &enginev1.GetOperationResponse{Operation: op}, nil
}

// ListTools returns the catalog.
func (s *Server) ListTools(ctx context.Context, req *enginev1.ListToolsRequest) (*enginev1.ListToolsResponse, error) {
	return s.tools, nil
}

// CreateDocument creates an empty document.
func (s *Server) CreateDocument(ctx context.Context, req *enginev1.CreateDocumentRequest) (*enginev1.CreateDocumentResponse, error) {
	info, err := s.engine.CreateDocument(ctx, req)
	if err != nil {
		return nil, toStatus(err).Err()
	}
	return &enginev1.CreateDocumentResponse{Document: info}, nil
}

// GetDocument reads a document's info.
func (s *Server) GetDocument(ctx context.Context, req *enginev1.GetDocumentRequest) (*enginev1.GetDocumentResponse, error) {
	info, err := s.engine.GetDocument(ctx, req.GetDocumentId())
	if err != nil {
		return nil, toStatus(err).Err()
	}
	return &enginev1.GetDocumentResponse{Document: info}, nil
}

// ImportDocument creates a document from a DXF file.
func (s *Server) ImportDocument(ctx context.Context, req *enginev1.ImportDocumentRequest) (*enginev1.ImportDocumentResponse, error) {
	resp, err := s.engine.ImportDocument(ctx, req)
	if err != nil {
		return nil, toStatus(err).Err()
	}
	return resp, nil
}

// ListDocuments lists documents.
func (s *Server) ListDocuments(ctx context.Context, req *enginev1.ListDocumentsRequest) (*enginev1.ListDocumentsResponse, error) {
	resp, err := s.engine.ListDocuments(ctx, req)
	return resp, toStatus(err).Err()
}

// ExportDocument renders a document as DXF or SVG.
func (s *Server) ExportDocument(ctx context.Context, req *enginev1.ExportDocumentRequest) (*enginev1.ExportDocumentResponse, error) {
	resp, err := s.engine.ExportDocument(ctx, req)
	return resp, toStatus(err).Err()
}

// GetSystemStatus reports the engine's status.
func (s *Server) GetSystemStatus(ctx context.Context, req *enginev1.GetSystemStatusRequest) (*enginev1.GetSystemStatusResponse, error) {
	resp, err := s.systemStatus(ctx, principal(ctx))
	return resp, toStatus(err).Err()
}

// recentOperations is how many operations system status lists.
const recentOperations = 20

func (s *Server) systemStatus(ctx context.Context, principal string) (*enginev1.GetSystemStatusResponse, error) {
	return &enginev1.GetSystemStatusResponse{
		Version:          version,
		Store:            s.store.Kind(),
		Epoch:            s.sessions.epoch,
		Documents:        int64(s.engine.DocumentCount()),
		Sessions:         s.sessions.count(),
		RecentOperations: s.engine.RecentOperations(principal, recentOperations),
		Ready:            true,
	}, nil
}

// toolCatalog renders the generated catalog once, at start-up; it never
// changes while the engine runs.
func toolCatalog() (*enginev1.ListToolsResponse, error) {
	resp := &enginev1.ListToolsResponse{}
	for _, t := range enginev1.Tools {
		resp.Tools = append(resp.Tools, &enginev1.Tool{
			Name:             t.Name,
			Description:      t.Description,
			InputSchemaJson:  []byte(t.InputSchema),
			OutputSchemaJson: []byte(t.OutputSchema),
			Annotations:      t.Annotations,
		})
	}
	return resp, nil
}
