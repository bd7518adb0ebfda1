// SPDX-License-Identifier: Apache-2.0

package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gotc/gotc/internal/manual"
)

// hyphenated is the break man makes in a word at the end of a line.
var hyphenated = regexp.MustCompile("\u2010\\s+")

// TestPagesRender writes every page and has man(1) format it as lintian
// does, with warnings on: none may warn, and each shows its name line,
// its synopsis and its example as help prints them. gotc-apply(5) is
// package apply's documentation. Needs man-db (./test.sh installs it).
func TestPagesRender(t *testing.T) {
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("no man(1): apt-get install man-db")
	}
	dir := t.TempDir()
	if err := write(dir, "../../..", "2026-12-04", "gotc test"); err != nil {
		t.Fatal(err)
	}
	for _, p := range manual.Pages {
		file := filepath.Join(dir, "man"+p.Section, p.Name+"."+p.Section)
		cmd := exec.Command("man", "--warnings", "-E", "UTF-8", "-l", "-Tutf8", "-Z", file)
		cmd.Env = append(os.Environ(), "LC_ALL=C.UTF-8", "MANROFFSEQ=", "MANWIDTH=80")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil || stderr.Len() > 0 {
			t.Errorf("%s: %v\n%s", p.Ref(), err, stderr.String())
		}
		out, err := exec.Command("man", "-l", file).Output()
		if err != nil {
			t.Fatalf("%s: %v", p.Ref(), err)
		}
		// man fills and hyphenates prose: compare words, not lines.
		text := strings.Join(strings.Fields(hyphenated.ReplaceAllString(string(out), "")), " ")
		want := []string{p.Name + " - " + p.Summary}
		for _, line := range strings.Split(strings.TrimSuffix(p.Example, "\n"), "\n") {
			want = append(want, strings.Join(strings.Fields(line), " "))
		}
		if p.Usage != "" {
			first, _, _ := strings.Cut(strings.TrimPrefix(p.Usage, "Usage:"), "\n")
			want = append(want, strings.Join(strings.Fields(first), " "))
		}
		if p.DocOf == "apply" {
			want = append(want, "root: cake bandwidth 100mbit diffserv4 nat", "A class is a mapping with:")
		}
		for _, w := range want {
			if !strings.Contains(text, w) {
				t.Errorf("%s does not show %q:\n%s", p.Ref(), w, out)
			}
		}
	}
}
