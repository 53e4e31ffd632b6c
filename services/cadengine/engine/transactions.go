package engine

import (
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// Checkpoints inside a batch.
//
// transaction_begin opens a checkpoint, nested in the batch's own (the one
// on_error rollback holds) and in any checkpoint still open;
// transaction_commit closes the innermost, keeping its changes;
// transaction_rollback undoes every change since the innermost (with the
// undo log, in O(changes)) and closes it. Checkpoints still open when the
// batch ends close with it: their changes are kept, unless the batch
// itself rolls back, which undoes them with everything else. The
// transaction id is the transaction_begin step's operation id.
//
// The checkpoint steps change nothing themselves, so they draw no
// revision. A rollback draws one only if it undid changes that were
// already stored (at a commit point before a wait on the client);
// undoing only uncommitted work puts the revision back where it was (see
// run).
//
// Outside a batch there is nothing for a checkpoint to span: as a single
// tools.call these tools answer unsupported, capability
// "transactions_outside_batch".

// inBatch is the call's batch, or the unsupported failure.
func (c *call) inBatch() (*run, error) {
	if c.r == nil || c.r.single || c.r.t == nil {
		return nil, unsupported("transactions_outside_batch", "checkpoints live inside a cad.batch; as a single call there is nothing for them to span")
	}
	return c.r, nil
}

func transactionBegin(c *call, _ *enginev1.TransactionBeginArgs) (*enginev1.TransactionBeginResult, error) {
	r, err := c.inBatch()
	if err != nil {
		return nil, err
	}
	r.checkpoints = append(r.checkpoints, r.checkpoint(c.opID, c.step))
	r.transaction = true
	return &enginev1.TransactionBeginResult{TransactionId: c.opID, Revision: c.d.Revision}, nil
}

func transactionCommit(c *call, _ *enginev1.TransactionCommitArgs) (*enginev1.TransactionCommitResult, error) {
	r, err := c.inBatch()
	if err != nil {
		return nil, err
	}
	if len(r.checkpoints) == 0 {
		return nil, failed("no checkpoint is open (transaction_begin opens one)")
	}
	cp := r.checkpoints[len(r.checkpoints)-1]
	r.checkpoints = r.checkpoints[:len(r.checkpoints)-1]
	return &enginev1.TransactionCommitResult{TransactionId: cp.id}, nil
}

func transactionRollback(c *call, _ *enginev1.TransactionRollbackArgs) (*enginev1.TransactionRollbackResult, error) {
	r, err := c.inBatch()
	if err != nil {
		return nil, err
	}
	if len(r.checkpoints) == 0 {
		return nil, failed("no checkpoint is open (transaction_begin opens one)")
	}
	cp := r.checkpoints[len(r.checkpoints)-1]
	r.checkpoints = r.checkpoints[:len(r.checkpoints)-1]
	n := r.rollbackTo(cp)
	return &enginev1.TransactionRollbackResult{TransactionId: cp.id, Undone: int64(n), Verified: c.d.ContentHash() == cp.hash}, nil
}
