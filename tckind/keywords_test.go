// SPDX-License-Identifier: Apache-2.0

package tckind

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/gotc/gotc/attrs"
)

// AppendTCName writes a mode as the word tc has for it, and refuses a
// value tc has no word for, naming it.
func TestAppendTCName(t *testing.T) {
	w, err := AppendTCName([]string{"bandwidth", "1mbit"}, "cake flow mode", attrs.CakeFlowModeDualSrc)
	if err != nil || !slices.Equal(w, []string{"bandwidth", "1mbit", "dual-srchost"}) {
		t.Errorf("dual-src: %q, %v", w, err)
	}
	_, err = AppendTCName(nil, "dualpi2 ECN mask", attrs.DualPI2ECNMaskClaECT)
	if !errors.Is(err, ErrNoKeywords) || !strings.Contains(err.Error(), "dualpi2 ECN mask cla-ect") {
		t.Errorf("cla-ect, which tc has no word for: %v", err)
	}
	_, err = AppendTCName(nil, "cake flow mode", attrs.CakeFlowMode(9))
	if !errors.Is(err, ErrNoKeywords) || !strings.Contains(err.Error(), "CakeFlowMode(9)") {
		t.Errorf("a mode the spec does not have: %v", err)
	}
}
