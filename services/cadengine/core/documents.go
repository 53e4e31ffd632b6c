package core

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// documentCreate is CreateDocument as a tool; the response's revision is
// the new document's (0).
func documentCreate(c *call, a *enginev1.DocumentCreateArgs) (*enginev1.DocumentCreateResult, error) {
	info, err := c.e.createDocument(c.ctx, a.GetName(), a.GetUnits())
	if err != nil {
		return nil, err
	}
	return &enginev1.DocumentCreateResult{Document: info}, nil
}

func documentInfo(c *call, _ *enginev1.DocumentInfoArgs) (*enginev1.DocumentInfo, error) {
	return c.d.info(), nil
}
