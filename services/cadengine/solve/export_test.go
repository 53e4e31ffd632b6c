package solve

// Forget makes s solve every group again at its next solve, as a system
// built afresh would: the oracle of the incremental solve.
func Forget(s *System) {
	for k := range s.entries {
		s.entries[k].dirty = true
	}
	for p := range s.dirty {
		s.dirty[p] = true
	}
	s.stale = true
}
