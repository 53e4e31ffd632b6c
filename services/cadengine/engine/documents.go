package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// documentCreate is CreateDocument as a tool; the response's revision is
// the new document's (0). The running operation commits the document
// with its journal record, in one transaction, and then publishes it.
func documentCreate(c *call, a *enginev1.DocumentCreateArgs) (*enginev1.DocumentCreateResult, error) {
	d, err := c.e.newDocument(a.GetName(), a.GetUnits())
	if err != nil {
		return nil, invalidArgs("", reasonInvalid, "%v", err)
	}
	c.created = d
	return &enginev1.DocumentCreateResult{Document: d.Info()}, nil
}

func documentInfo(c *call, _ *enginev1.DocumentInfoArgs) (*enginev1.DocumentInfo, error) {
	return c.d.Info(), nil
}
