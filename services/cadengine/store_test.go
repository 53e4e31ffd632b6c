package cadengine

import "testing"

func TestOpenStoreSpecs(t *testing.T) {
	for _, bad := range []string{"", "memory:x", "postgres://x", "sqlite:", "nonsense"} {
		if s, err := OpenStore(bad); err == nil {
			s.Close()
			t.Errorf("OpenStore(%q) succeeded", bad)
		}
	}
	s, err := OpenStore("memory:")
	if err != nil || s.Kind() != "memory" {
		t.Errorf("OpenStore(memory:) = %v, %v", s, err)
	}
}
