package contract_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cadbridge/cadbridge/contract"
	enginev1 "github.com/cadbridge/cadbridge/gen/cad/engine/v1"
)

// BenchmarkDecodeFastBatch decodes the params of a 100-step cad.batch of
// entity_create_line, as the gateway does for each one.
func BenchmarkDecodeFastBatch(b *testing.B) {
	steps := make([]string, 100)
	for i := range steps {
		steps[i] = fmt.Sprintf(`{"tool":"entity_create_line","args":{"x1":%d,"y1":0,"x2":%d.5,"y2":10}}`, i, i)
	}
	params := []byte(`{"document_id":"doc-0123456789abcdef","steps":[` + strings.Join(steps, ",") + `]}`)
	b.ReportAllocs()
	b.SetBytes(int64(len(params)))
	for b.Loop() {
		var req enginev1.ExecuteBatchRequest
		if _, ok := contract.DecodeFast(params, &req, "_meta"); !ok {
			b.Fatal("DecodeFast refused the batch")
		}
	}
}

// BenchmarkUnmarshalCheckedStep decodes one entity_create_line step's
// arguments into a message of its own, as the engine does for each step of
// a batch.
func BenchmarkUnmarshalCheckedStep(b *testing.B) {
	args := []byte(`{"x1":1,"y1":0,"x2":2.5,"y2":10}`)
	msgs := make([]enginev1.EntityCreateLineArgs, 1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if i == len(msgs) {
			b.StopTimer()
			msgs, i = make([]enginev1.EntityCreateLineArgs, 1024), 0
			b.StartTimer()
		}
		if err := contract.UnmarshalChecked(args, &msgs[i], nil); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
