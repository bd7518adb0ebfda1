// SPDX-License-Identifier: Apache-2.0

package attrs

import (
	"bufio"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// goldenMessages returns the attribute part of every raw kernel message
// recorded in ../testdata/golden (after the 20-byte tcmsg header).
func goldenMessages(f *testing.F) [][]byte {
	files, _ := filepath.Glob("../testdata/golden/*.golden")
	var out [][]byte
	for _, file := range files {
		fh, err := os.Open(file)
		if err != nil {
			f.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) == 4 && fields[0] == "---" && fields[1] == "raw" {
				b, err := hex.DecodeString(fields[3])
				if err == nil && len(b) > TCMsgLen {
					out = append(out, b[TCMsgLen:])
				}
			}
		}
		fh.Close()
	}
	return out
}

// FuzzDecodeTCAttrs decodes arbitrary attribute streams as a kernel dump
// would deliver them: decoding must never panic, and whatever decodes must
// encode and decode again to the same value (nothing is dropped).
func FuzzDecodeTCAttrs(f *testing.F) {
	for _, b := range goldenMessages(f) {
		f.Add(b)
	}
	f.Add([]byte{8, 0, 1, 0, 's', 'f', 'q', 0, 8, 0, 2, 0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		var first TCAttrs
		if err := first.Decode(b); err != nil {
			return
		}
		again := NewEncoder(nil)
		first.Encode(again)
		var second TCAttrs
		if err := second.Decode(again.Bytes()); err != nil {
			t.Fatalf("re-encoded attributes do not decode: %v", err)
		}
		if diff := cmp.Diff(first, second); diff != "" {
			t.Fatalf("decode(encode(x)) != x:\n%s", diff)
		}
	})
}
